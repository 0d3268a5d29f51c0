import pg from 'pg';
import { RunQueue } from '../../main/app/team/run-queue';
import { PgEventFeed } from '../../main/persistence/postgres/event-feed';
import { openPostgresStores } from '../../main/persistence/postgres/stores';
import { withBenchDatabase } from './database';
import type { Benchmark, BenchResult } from '../bench-result';
import { median, percentile } from '../bench-result';

const RUNS = Number(process.env.BENCH_QUEUE_RUNS ?? 100);
const BUDGET_MS = 500;

/**
 * Team mode's pickup latency: from `enqueue` to the run's first event arriving at a console's
 * event feed. A worker (its own RunQueue, as a worker process has) appends the event as soon as its
 * handler starts; the console listens through PgEventFeed. Enqueues come at random moments
 * (20-120 ms apart), not in step with any poll. Runs against a throwaway local cluster, or
 * AGENTS_TEST_DATABASE_URL's server.
 */
async function measure(serverUrl: string): Promise<{ toHandler: number[]; toEvent: number[] }> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const name = `bench_queue_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const worker = await RunQueue.open(url.toString(), { name: 'bench-worker' });
  const producer = await RunQueue.open(url.toString(), { name: 'bench-console' });
  const workerStores = await openPostgresStores(url.toString());
  const consoleStores = await openPostgresStores(url.toString());
  const feed = new PgEventFeed(url.toString(), consoleStores.events);
  try {
    await feed.start();
    const handlerAt = new Map<string, number>();
    await worker.work({ concurrency: 2 }, async (planId) => {
      handlerAt.set(planId, performance.now());
      await workerStores.events.appendNext(planId, 'strategize_started', {});
    });
    const toHandler: number[] = [];
    const toEvent: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const planId = `01BENCH${i}`;
      const seen = new Promise<number>((resolve) => {
        const stop = feed.subscribe(planId, 0, () => {
          stop();
          resolve(performance.now());
        });
      });
      const enqueuedAt = performance.now();
      await producer.enqueue(planId, { reason: 'run' });
      const eventAt = await seen;
      toEvent.push(eventAt - enqueuedAt);
      toHandler.push(handlerAt.get(planId)! - enqueuedAt);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 100));
    }
    return { toHandler, toEvent };
  } finally {
    await feed.stop();
    await Promise.all([worker.stop(2000), producer.stop(2000), workerStores.close(), consoleStores.close()]);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

export const queuePickupBenchmark: Benchmark = {
  name: 'team queue pickup',
  async run(): Promise<BenchResult[]> {
    return withBenchDatabase({ name: 'queue pickup p95 (enqueue to first event)', budget: `< ${BUDGET_MS} ms` }, async (serverUrl) => {
      const { toHandler, toEvent } = await measure(serverUrl);
      const p95 = percentile(toEvent, 95);
      return [
        {
          name: 'queue pickup p95 (enqueue to first event)',
          figure: `p95 ${p95.toFixed(1)} ms (p50 ${median(toEvent).toFixed(1)}; to handler p95 ${percentile(toHandler, 95).toFixed(1)})`,
          budget: `< ${BUDGET_MS} ms`,
          pass: p95 < BUDGET_MS,
          details: {
            runs: RUNS,
            eventP50Ms: median(toEvent),
            eventP95Ms: p95,
            eventMaxMs: Math.max(...toEvent),
            handlerP50Ms: median(toHandler),
            handlerP95Ms: percentile(toHandler, 95),
          },
        },
      ];
    });
  },
};
