import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database';
import { SqliteLeaseStore } from './lease-store';
import { tempDatabase } from './test-support/fixtures';

describe('SqliteLeaseStore', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let clock: number;
  const alive = new Set<number>([100, 200]);
  let leases: SqliteLeaseStore;
  const store = (db = temp.db) =>
    new SqliteLeaseStore(db, { hostname: 'here', now: () => new Date(clock), isAlive: (pid) => alive.has(pid), staleAfterMs: 60_000 });
  beforeEach(() => {
    temp = tempDatabase();
    clock = Date.UTC(2024, 0, 1);
    alive.clear();
    alive.add(100).add(200);
    leases = store();
  });
  afterEach(() => temp.dispose());

  it('takes a free lease and reports it', async () => {
    expect(await leases.get('P1')).toBeUndefined();
    expect(await leases.acquire('P1', 100, 'here')).toBe(true);
    expect(await leases.get('P1')).toEqual({ planId: 'P1', pid: 100, hostname: 'here', heartbeatAt: new Date(clock).toISOString(), acquiredAt: new Date(clock).toISOString() });
    expect((await leases.list()).map((l) => l.planId)).toEqual(['P1']);
  });

  it('refuses a lease a live process holds, from any connection', async () => {
    await leases.acquire('P1', 100, 'here');
    const other = store(openDatabase(temp.file));
    expect(await other.acquire('P1', 200, 'here')).toBe(false);
    expect(await other.tryAcquire('P1', 200, 'here')).toMatchObject({ acquired: false, holder: { pid: 100 } });
    other.db.close();
  });

  it('lets the holder acquire again, keeping acquiredAt', async () => {
    await leases.acquire('P1', 100, 'here');
    const acquiredAt = (await leases.get('P1'))!.acquiredAt;
    clock += 5000;
    expect(await leases.tryAcquire('P1', 100, 'here')).toMatchObject({ acquired: true, previous: null, lease: { acquiredAt } });
    expect((await leases.get('P1'))!.heartbeatAt).toBe(new Date(clock).toISOString());
  });

  it('takes over a lease whose process on this host is gone, naming the previous holder', async () => {
    await leases.acquire('P1', 100, 'here');
    alive.delete(100);
    expect((await leases.listStale()).map((l) => l.planId)).toEqual(['P1']);
    const result = leases.tryAcquire('P1', 200, 'here');
    expect(await result).toMatchObject({ acquired: true, previous: { pid: 100 }, lease: { pid: 200 } });
    expect(await leases.listStale()).toEqual([]);
  });

  it('judges another host\'s lease by its heartbeat', async () => {
    await leases.acquire('P1', 999, 'elsewhere');
    clock += 59_000;
    expect(await leases.acquire('P1', 100, 'here')).toBe(false);
    clock += 2_000;
    expect(await leases.acquire('P1', 100, 'here')).toBe(true);
  });

  it('heartbeats and releases only for the holder', async () => {
    await leases.acquire('P1', 100, 'here');
    clock += 1000;
    expect(await leases.heartbeat('P1', 200)).toBe(false);
    expect(await leases.heartbeat('P1', 100)).toBe(true);
    expect((await leases.get('P1'))!.heartbeatAt).toBe(new Date(clock).toISOString());
    expect(await leases.release('P1', 200)).toBe(false);
    expect(await leases.release('P1', 100)).toBe(true);
    expect(await leases.get('P1')).toBeUndefined();
    expect(await leases.heartbeat('P1', 100)).toBe(false);
  });

  it('defaults to this process and this host', async () => {
    const real = new SqliteLeaseStore(temp.db);
    expect(await real.acquire('P2')).toBe(true);
    expect(await real.get('P2')).toMatchObject({ pid: process.pid, hostname: real.hostname });
    expect(real.isStale((await real.get('P2'))!)).toBe(false);
    expect(await real.release('P2')).toBe(true);
  });
});
