import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StaleEpochError } from '../../engine/ports/leases';
import { makeDecision, makeInvocation, makePlan } from '../test-support/fixtures';
import { PgLeaseStore } from './lease-store';
import { openPostgresStores, type PostgresStores } from './stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from './test-support/database';

const status = { decisionId: 'D1', status: 'running' } as const;

/**
 * Two workers' stores over one database: worker A takes a plan's job, stops (SIGSTOP, a cut
 * connection), worker B takes the job over; A, woken, must record nothing more: the database
 * refuses each of its writes inside the writing transaction, before A learns it lost the job.
 */
describe.skipIf(!testPostgres().url)(postgresSuiteName('PostgreSQL fencing by the lease epoch'), () => {
  const database = useFreshDatabase();
  let a: PostgresStores;
  let b: PostgresStores;
  beforeAll(async () => {
    a = await openPostgresStores(database.url());
    b = await openPostgresStores(database.url(), { migrate: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("refuses every write of the worker whose job was taken over; stamps the new holder's events with its epoch", async () => {
    const plan = makePlan({ id: 'P1' });
    await a.plans.insert(plan);
    expect(await a.leases.seize('P1', 100, 'host-a')).toBe(1);
    await a.events.appendNext('P1', 'decision_status', status);

    expect(await b.leases.seize('P1', 200, 'host-b')).toBe(2);

    const refused = [
      () => a.events.appendNext('P1', 'decision_status', status),
      () => a.plans.saveDecisions([makeDecision('P1')]),
      () => a.plans.update('P1', { name: 'rewritten by the stale worker' }),
      () => a.invocations.record(makeInvocation('P1')),
      () => a.atomically(async () => {
        await a.events.appendNext('P1', 'decision_status', status);
      }),
    ];
    for (const write of refused) await expect(write()).rejects.toBeInstanceOf(StaleEpochError);
    expect(await a.leases.reclaim('P1', 1, 100, 'host-a')).toBe(false);
    expect(await a.leases.heartbeat('P1', 100, 'host-a')).toBe(false);
    expect(await a.leases.release('P1', 100, 'host-a')).toBe(false);
    await expect(a.events.appendNext('P1', 'decision_status', status)).rejects.toBeInstanceOf(StaleEpochError);

    await b.events.appendNext('P1', 'decision_status', status);
    const rows = await b.db.query<{ seq: number; epoch: number }>('SELECT seq, epoch FROM events WHERE plan_id = $1 ORDER BY seq', ['P1']);
    expect(rows).toEqual([
      { seq: 1, epoch: 1 },
      { seq: 2, epoch: 2 },
    ]);
    expect((await b.plans.get('P1'))?.name).toBe(plan.name);
    expect(await b.plans.listDecisions('P1')).toEqual([]);
  });

  it('refuses a raw write carrying a stale epoch, whoever makes it; a session holding none is not fenced', async () => {
    await b.plans.insert(makePlan({ id: 'P2' }));
    expect(await b.leases.seize('P2', 200, 'host-b')).toBe(1);
    expect(await b.leases.seize('P2', 200, 'host-b')).toBe(2);
    const client = new pg.Client({ connectionString: database.url() });
    await client.connect();
    try {
      await client.query(`SELECT set_config('agents.fences', '{"P2": 1}', false)`);
      await expect(client.query("UPDATE plans SET name = 'stale' WHERE id = 'P2'")).rejects.toMatchObject({ code: 'AG409', message: /stale epoch 1: plan P2 was taken over \(its epoch is now 2\)/ });
      await client.query(`SELECT set_config('agents.fences', '', false)`);
      await client.query("UPDATE plans SET name = 'an operator' WHERE id = 'P2'");
    } finally {
      await client.end();
    }
  });

  it('makes a take wait for a write that passed the fence to commit, so none lands after the takeover', async () => {
    await a.plans.insert(makePlan({ id: 'P3' }));
    await a.leases.seize('P3', 100, 'host-a');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = a.atomically(async () => {
      await a.events.appendNext('P3', 'decision_status', status);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    let taken = false;
    const takeover = b.leases.seize('P3', 200, 'host-b').then((epoch) => {
      taken = true;
      return epoch;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(taken).toBe(false);
    release();
    await writing;
    expect(await takeover).toBe(2);
    await expect(a.events.appendNext('P3', 'decision_status', status)).rejects.toBeInstanceOf(StaleEpochError);
  });

  it("judges another machine's lease by the database's clock: a machine whose clock runs minutes ahead does not take a live lease", async () => {
    const onA = new PgLeaseStore(a.db, { hostname: 'host-a', staleAfterMs: 60_000 });
    const onB = new PgLeaseStore(b.db, { hostname: 'host-b', staleAfterMs: 60_000 });
    expect(await onA.tryAcquire('P4', 100, 'host-a')).toMatchObject({ acquired: true });
    vi.useFakeTimers({ now: Date.now() + 5 * 60_000, toFake: ['Date'] });
    try {
      expect(await onB.tryAcquire('P4', 200, 'host-b')).toMatchObject({ acquired: false, holder: { pid: 100 } });
      expect((await onB.listStale()).map((l) => l.planId)).not.toContain('P4');
    } finally {
      vi.useRealTimers();
    }
    // Silent for longer than the lease, by the database's clock: taken over.
    await a.db.query(`UPDATE plan_leases SET heartbeat_at = to_char((clock_timestamp() - interval '2 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE plan_id = 'P4'`);
    expect(await onB.tryAcquire('P4', 200, 'host-b')).toMatchObject({ acquired: true, previous: { pid: 100 } });
  });
});
