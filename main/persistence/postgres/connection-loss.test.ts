import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyError } from '../../engine/run/error-recovery-service';
import { makePlan } from '../test-support/fixtures';
import { PgDatabase } from './database';
import { DatabaseError } from './errors';
import { openPostgresStores, type PostgresStores } from './stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from './test-support/database';

/**
 * A worker's connection terminated by the server (pg_terminate_backend, as a restart does) while it
 * is checked out and idle inside a transaction: the transaction fails, nothing of it is kept, the
 * process does not die of the client's 'error' event, and the next unit works on a new connection.
 */
describe.skipIf(!testPostgres().url)(postgresSuiteName('a connection terminated under a unit'), () => {
  const database = useFreshDatabase();
  let stores: PostgresStores;
  let admin: pg.Client;
  beforeAll(async () => {
    stores = await openPostgresStores(database.url());
    admin = new pg.Client({ connectionString: database.url() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await stores?.close();
  });

  it('fails the unit, keeps none of it, and goes on', async () => {
    await stores.plans.insert(makePlan({ id: 'P1', name: 'before' }));
    // Fenced, as a worker's connections are: the session setting is made again on the new connection.
    await stores.leases.seize('P1', 100, 'host-a');
    const unit = stores.atomically(async () => {
      await stores.plans.update('P1', { name: 'inside the unit' });
      const [{ pid }] = await stores.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // Idle in the transaction while the server ends it: the client emits 'error' now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stores.plans.update('P1', { name: 'after the loss' });
    });
    // Interrupted work, retried where it stood, not a step's bad input.
    const lost = await unit.then(() => null, (error: unknown) => error);
    expect(lost).toBeInstanceOf(Error);
    expect(classifyError(lost)).toBe('interrupted');
    expect(String(lost)).toMatch(/lost the connection to postgres(ql)?:\/\//);
    expect((await stores.plans.get('P1'))?.name).toBe('before');
    await stores.plans.update('P1', { name: 'next unit' });
    expect((await stores.plans.get('P1'))?.name).toBe('next unit');
  });

  it('fails a unit whose statement fails as SQLite does: the whole unit undone, none of it kept', async () => {
    await stores.plans.insert(makePlan({ id: 'P2', name: 'before' }));
    const unit = stores.atomically(async () => {
      await stores.plans.update('P2', { name: 'inside the unit' });
      await stores.db.query('SELECT * FROM no_such_table');
    });
    await expect(unit).rejects.toThrow(/no_such_table/);
    expect((await stores.plans.get('P2'))?.name).toBe('before');
  });

  it('calls a database never reached unusable (one line, exit 2), and one lost after it was reached interrupted', async () => {
    const unreachable = new PgDatabase('postgresql://agents:secret@127.0.0.1:1/none', { connectionTimeoutMillis: 2_000 });
    const refused = await unreachable.query('SELECT 1').then(() => null, (error: unknown) => error);
    await unreachable.close();
    expect(refused).toBeInstanceOf(DatabaseError);
    expect(classifyError(refused)).toBe('validation');

    const db = new PgDatabase(database.url());
    await db.query('SELECT 1');
    const [{ pid }] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // The pool's only idle connection ends; the next statement on it fails (or a new one is made).
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1', [pid]);
    const cut = await db.transaction(async () => {
      await db.query('SELECT pg_terminate_backend(pg_backend_pid())');
    }).then(() => null, (error: unknown) => error);
    await db.close();
    expect(classifyError(cut)).toBe('interrupted');
  });
});
