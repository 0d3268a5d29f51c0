import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { createStores, type SqliteStores } from './stores';
import { makeDecision, makePlan, tempDatabase } from './test-support/fixtures';

/**
 * Fencing on one machine's database: two connections of the same file stand for two processes
 * whose hosts differ (a data folder shared between machines), so the second takes the first's
 * lease over once its heartbeat is a minute old, and the first, woken, must record nothing more.
 */
const status = { decisionId: 'D1', status: 'running' } as const;

describe('SQLite fencing by the lease epoch', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let clock: number;
  let first: SqliteStores;
  let second: SqliteStores;
  const options = (hostname: string) => ({ leases: { hostname, now: () => new Date(clock), isAlive: () => true, staleAfterMs: 60_000 } });
  beforeEach(() => {
    temp = tempDatabase();
    clock = Date.UTC(2024, 0, 1);
    first = createStores(temp.db, options('host-a'));
    second = createStores(openDatabase(temp.file), options('host-b'));
  });
  afterEach(() => {
    second.leases.db.close();
    temp.dispose();
  });

  it("refuses every write of a holder whose lease was taken over, in the database; the new holder's writes pass", async () => {
    const plan = makePlan({ id: 'P1' });
    await first.plans.insert(plan);
    const taken = await first.leases.tryAcquire('P1', 100, 'host-a');
    expect(taken).toMatchObject({ acquired: true, epoch: 1 });
    await first.events.appendNext('P1', 'decision_status', status);

    clock += 2 * 60_000;
    expect(await second.leases.tryAcquire('P1', 200, 'host-b')).toMatchObject({ acquired: true, epoch: 2, previous: { pid: 100 } });
    expect(await second.leases.epochOf('P1')).toBe(2);

    // The first holder, woken: its event, its decision, its plan's state are each refused.
    await expect(first.events.appendNext('P1', 'decision_status', status)).rejects.toThrow(/stale epoch/);
    await expect(first.plans.saveDecisions([makeDecision('P1')])).rejects.toThrow(/stale epoch/);
    await expect(first.plans.update('P1', { name: 'rewritten by the stale holder' })).rejects.toThrow(/stale epoch/);
    expect(await first.leases.heartbeat('P1', 100, 'host-a')).toBe(false);
    // Its release finds the lease not its own and keeps the fence: still refused.
    expect(await first.leases.release('P1', 100, 'host-a')).toBe(false);
    await expect(first.events.appendNext('P1', 'decision_status', status)).rejects.toThrow(/stale epoch/);

    await second.events.appendNext('P1', 'decision_status', status);
    expect((await second.events.list('P1')).map((e) => e.seq)).toEqual([1, 2]);
    expect((await second.plans.get('P1'))?.name).toBe(plan.name);
  });

  it('fences nobody who holds no epoch, and a renewal by the holder keeps its epoch', async () => {
    await first.plans.insert(makePlan({ id: 'P1' }));
    expect(await first.leases.tryAcquire('P1', 100, 'host-a')).toMatchObject({ epoch: 1 });
    expect(await first.leases.tryAcquire('P1', 100, 'host-a')).toMatchObject({ epoch: 1 });
    // A client answering from the other connection holds no epoch of P1: not fenced.
    await second.events.appendNext('P1', 'decision_status', status);
    expect(await first.leases.release('P1', 100, 'host-a')).toBe(true);
    // The next take raises it again: an epoch only grows.
    expect(await second.leases.tryAcquire('P1', 200, 'host-b')).toMatchObject({ epoch: 2 });
  });
});
