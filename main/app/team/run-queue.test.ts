import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { RunQueue } from './run-queue';

async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise and its resolve, for a handler the test lets finish. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('RunQueue on pg-boss'), () => {
  const database = useFreshDatabase();
  const queues: RunQueue[] = [];
  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.stop(2000)));
  });
  const open = async (name: string) => {
    const queue = await RunQueue.open(database.url(), { name });
    queues.push(queue);
    return queue;
  };

  it('starts four processes at once on a fresh database, and keeps one queued run per plan', async () => {
    const [a, b] = await Promise.all(['a', 'b', 'c', 'd'].map(open));
    expect(await a!.depth()).toEqual({ queued: 0, active: 0 });
    const first = await a!.enqueue('01PLAN', { reason: 'run' });
    expect(first).toEqual(expect.any(String));
    // Already queued: a no-op, from this process or another.
    expect(await a!.enqueue('01PLAN', { reason: 'run' })).toBeNull();
    expect(await b!.enqueue('01PLAN', { reason: 'approval answered' })).toBeNull();
    expect(await b!.enqueue('01OTHER', { reason: 'run' })).toEqual(expect.any(String));
    expect(await b!.depth()).toEqual({ queued: 2, active: 0 });
    expect(await a!.queuedPlans()).toEqual(['01PLAN', '01OTHER']);
  });

  it('runs each queued plan once; a plan enqueued while it runs runs again after, never twice at once', async () => {
    const queue = queues[0]!;
    const started: string[] = [];
    const running = new Map<string, { open(): void }>();
    let overlap = false;
    await queue.work({ concurrency: 3, name: 'worker-1' }, async (planId, signal) => {
      expect(signal).toBeInstanceOf(AbortSignal);
      if (running.has(planId)) overlap = true;
      const wait = gate();
      running.set(planId, wait);
      started.push(planId);
      await wait.promise;
      running.delete(planId);
    });
    await waitFor('both plans to start', () => running.size === 2);
    expect(started.sort()).toEqual(['01OTHER', '01PLAN']);
    expect(await queue.depth()).toEqual({ queued: 0, active: 2 });

    // What listWorkers shows for `agents workers`.
    const workers = await waitFor('the worker row with its plans', async () => {
      const list = await queue.listWorkers();
      return list.find((w) => w.name === 'worker-1' && w.plans.length === 2) && list;
    });
    const me = workers.find((w) => w.name === 'worker-1')!;
    expect(me).toMatchObject({ host: hostname(), pid: process.pid, concurrency: 3, live: true });
    expect(me.plans.sort()).toEqual(['01OTHER', '01PLAN']);
    expect(Date.now() - me.lastHeartbeat.getTime()).toBeLessThan(10_000);

    // An approval answered while the run is still finishing queues the next run; it waits for this one.
    expect(await queue.enqueue('01PLAN', { reason: 'approval answered' })).toEqual(expect.any(String));
    expect(await queue.enqueue('01PLAN', { reason: 'approval answered' })).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started.filter((p) => p === '01PLAN')).toHaveLength(1);
    expect(await queue.depth()).toEqual({ queued: 1, active: 2 });

    running.get('01PLAN')!.open();
    await waitFor('the second run of 01PLAN', () => started.filter((p) => p === '01PLAN').length === 2);
    running.get('01PLAN')!.open();
    running.get('01OTHER')!.open();
    await waitFor('an empty queue', async () => {
      const depth = await queue.depth();
      return depth.queued === 0 && depth.active === 0;
    });
    await waitFor('no plans on the worker', async () => (await queue.listWorkers()).find((w) => w.name === 'worker-1')?.plans.length === 0);
    expect(overlap).toBe(false);
    // A stopped worker leaves the list.
    await queue.stop(2000);
    expect((await queues[1]!.listWorkers()).map((w) => w.name)).not.toContain('worker-1');
  });

  it('picks a queued run up quickly: p95 from enqueue to the handler start over 50 runs (LISTEN/NOTIFY)', async () => {
    const queue = queues[1]!;
    const startedAt = new Map<string, number>();
    await queue.work({ concurrency: 1, name: 'latency' }, async (planId) => {
      startedAt.set(planId, performance.now());
    });
    const latencies: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      const planId = `01LATENCY${i}`;
      const enqueuedAt = performance.now();
      await queue.enqueue(planId, { reason: 'run' });
      await waitFor(`run ${i}`, () => startedAt.has(planId), 10_000);
      latencies.push(startedAt.get(planId)! - enqueuedAt);
      // Enqueues arrive at unrelated moments, not in step with the worker's polls.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!;
    console.log(`run queue pickup latency over 50 runs: p50 ${p(0.5).toFixed(1)} ms, p95 ${p(0.95).toFixed(1)} ms, max ${p(1).toFixed(1)} ms`);
    expect(p(0.95)).toBeLessThan(500);
  });
});
