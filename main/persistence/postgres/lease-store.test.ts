import { beforeEach, describe, expect, it } from 'vitest';
import { PgDatabase } from './database';
import { PgLeaseStore } from './lease-store';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// The SQLite lease store's tests (../lease-store.test.ts), awaited, and a race between two processes' pools.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgLeaseStore'), () => {
  const pg = usePostgresStores();
  let clock: number;
  const alive = new Set<number>();
  const store = (db = pg.stores().db) => new PgLeaseStore(db, { hostname: 'here', now: () => new Date(clock), isAlive: (pid) => alive.has(pid), staleAfterMs: 60_000 });
  beforeEach(() => {
    clock = Date.UTC(2024, 0, 1);
    alive.clear();
    alive.add(100).add(200);
  });

  it('takes a free lease and reports it; the holder acquires again, keeping acquiredAt', async () => {
    const leases = store();
    expect(await leases.get('P1')).toBeUndefined();
    expect(await leases.acquire('P1', 100, 'here')).toBe(true);
    const at = new Date(clock).toISOString();
    expect(await leases.get('P1')).toEqual({ planId: 'P1', pid: 100, hostname: 'here', heartbeatAt: at, acquiredAt: at });
    clock += 5000;
    expect(await leases.tryAcquire('P1', 100, 'here')).toMatchObject({ acquired: true, previous: null, lease: { acquiredAt: at } });
    expect((await leases.list()).map((l) => l.planId)).toEqual(['P1']);
  });

  it('refuses a lease a live process holds; takes over one whose process is gone, naming the previous holder', async () => {
    const leases = store();
    await leases.acquire('P1', 100, 'here');
    expect(await leases.tryAcquire('P1', 200, 'here')).toMatchObject({ acquired: false, holder: { pid: 100 } });
    alive.delete(100);
    expect((await leases.listStale()).map((l) => l.planId)).toEqual(['P1']);
    expect(await leases.tryAcquire('P1', 200, 'here')).toMatchObject({ acquired: true, previous: { pid: 100 }, lease: { pid: 200 } });
    expect(await leases.listStale()).toEqual([]);
  });

  it("judges another host's lease by its heartbeat; heartbeats and releases only for the holder", async () => {
    const leases = store();
    await leases.acquire('P1', 999, 'elsewhere');
    clock += 59_000;
    expect(await leases.acquire('P1', 100, 'here')).toBe(false);
    clock += 2_000;
    expect(await leases.acquire('P1', 100, 'here')).toBe(true);
    clock += 1000;
    expect(await leases.heartbeat('P1', 200)).toBe(false);
    expect(await leases.heartbeat('P1', 100)).toBe(true);
    expect((await leases.get('P1'))!.heartbeatAt).toBe(new Date(clock).toISOString());
    expect(await leases.release('P1', 200)).toBe(false);
    expect(await leases.release('P1', 100)).toBe(true);
    expect(await leases.get('P1')).toBeUndefined();
  });

  it('gives a free lease to exactly one of several processes asking at once', async () => {
    const other = new PgDatabase(pg.url());
    try {
      const pids = [100, 200, 300, 400];
      for (const pid of pids) alive.add(pid);
      const results = await Promise.all(pids.map((pid, i) => store(i % 2 === 0 ? pg.stores().db : other).acquire('P1', pid, 'here')));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store().get('P1'))?.pid).toBe(pids[results.indexOf(true)]);
    } finally {
      await other.close();
    }
  });
});
