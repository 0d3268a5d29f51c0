import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import { resolveDatabaseUrl } from './database-url';
import { DatabaseError } from './errors';
import { migratePostgres, PG_SCHEMA_VERSION } from './migrations';
import { openPostgresStores } from './stores';
import { createTestDatabase, postgresSuiteName, testPostgres } from './test-support/database';

describe('the database URL', () => {
  it('comes from --database, else AGENTS_DATABASE_URL, else the settings, else there is none', () => {
    const env = { AGENTS_DATABASE_URL: 'postgres://env@db/agents' };
    expect(resolveDatabaseUrl({ flag: 'postgresql://flag@db/agents', env, settings: 'postgres://settings@db/a' })).toBe('postgresql://flag@db/agents');
    expect(resolveDatabaseUrl({ env, settings: 'postgres://settings@db/a' })).toBe('postgres://env@db/agents');
    expect(resolveDatabaseUrl({ env: { AGENTS_DATABASE_URL: ' ' }, settings: 'postgres://settings@db/a' })).toBe('postgres://settings@db/a');
    expect(resolveDatabaseUrl({ env: {} })).toBeUndefined();
  });

  it('refuses what is not a PostgreSQL URL in one line, without the password', () => {
    const refusal = (flag: string) => {
      try {
        resolveDatabaseUrl({ flag, env: {} });
      } catch (error) {
        return error;
      }
      throw new Error('not refused');
    };
    const notUrl = refusal('://agents:secret@db/agents');
    expect(notUrl).toBeInstanceOf(ValidationError);
    expect((notUrl as Error).message).toMatch(/^database: .* is not a URL/);
    expect((notUrl as Error).message).not.toContain('secret');
    expect((refusal('mysql://u@db/agents') as Error).message).toBe(
      'database: mysql:// is not a PostgreSQL URL (expected postgresql://user:password@host:5432/database)',
    );
  });
});

describe('an unreachable database', () => {
  it('is one line naming the URL without its password (a ValidationError: exit 2 in the CLI), never a stack of pg internals', async () => {
    // Port 1 on this machine: nothing listens there.
    const url = 'postgresql://agents:secret@127.0.0.1:1/agents';
    const error = await openPostgresStores(url, { connectionTimeoutMillis: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toBeInstanceOf(ValidationError);
    const message = (error as Error).message;
    expect(message).toMatch(/^database: cannot connect to postgresql:\/\/agents:\*\*\*@127\.0\.0\.1:1\/agents: .*ECONNREFUSED/);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('secret');
    await expect(migratePostgres(url)).rejects.toBeInstanceOf(DatabaseError);
  });
});

describe.skipIf(!testPostgres().url)(postgresSuiteName('PostgreSQL migrations'), () => {
  const server = testPostgres().url!;
  const drops: (() => Promise<void>)[] = [];
  const fresh = async () => {
    const database = await createTestDatabase(server);
    drops.push(database.drop);
    return database.url;
  };
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  const version = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ version: number }>('SELECT version FROM agents_schema')).rows.map((row) => row.version);
    } finally {
      await client.end();
    }
  };

  it('makes a fresh database, once, however many processes migrate it at the same time', async () => {
    const url = await fresh();
    const results = await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    expect(results.map((r) => r.from).sort()).toEqual([0, PG_SCHEMA_VERSION, PG_SCHEMA_VERSION]);
    expect(await version(url)).toEqual([PG_SCHEMA_VERSION]);
    expect(await migratePostgres(url)).toEqual({ from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION });
  });

  it('refuses a database whose schema is newer than the process, in one line, and changes nothing', async () => {
    const url = await fresh();
    await migratePostgres(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('UPDATE agents_schema SET version = $1', [PG_SCHEMA_VERSION + 1]);
    await client.end();
    for (const attempt of [() => openPostgresStores(url), () => openPostgresStores(url, { migrate: false }), () => migratePostgres(url)]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as Error).message).toMatch(new RegExp(`^database: the database's schema is version ${PG_SCHEMA_VERSION + 1}, newer than this agents knows \\(${PG_SCHEMA_VERSION}\\): upgrade agents`));
      expect((error as Error).message).not.toContain('\n');
    }
    expect(await version(url)).toEqual([PG_SCHEMA_VERSION + 1]);
  });

  it('without migrating, refuses a database not yet made, and opens one that is', async () => {
    const url = await fresh();
    await expect(openPostgresStores(url, { migrate: false })).rejects.toThrow(/^database: the database's schema is version 0, older than this agents .*agents db migrate/);
    await migratePostgres(url);
    const stores = await openPostgresStores(url, { migrate: false });
    expect(await stores.plans.list()).toEqual([]);
    await stores.close();
  });

  it('refuses a database that does not exist on a server that does, in one line', async () => {
    const url = new URL(server);
    url.pathname = '/no_such_database';
    const error = await openPostgresStores(url.toString()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as Error).message).toMatch(/^database: cannot connect to .*no_such_database.*does not exist/);
  });
});
