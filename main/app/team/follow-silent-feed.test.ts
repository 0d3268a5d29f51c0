import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { openPostgresStores, PgEventFeed, type PostgresStores } from '../../persistence/postgres';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { makePlan } from '../../persistence/test-support/fixtures';
import { RunQueue } from './run-queue';
import { TeamDispatch } from './team-dispatch';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A follower (`agents plan run` in team mode) whose feed goes silent: the database stops announcing
 * events (its NOTIFY trigger disabled) while a worker's run goes on storing them. The follower must
 * notice, read what it missed by seq, hand on every event once and in order, and end only when the
 * run's job has ended.
 */
describe.skipIf(!testPostgres().url)(postgresSuiteName('a follower under a silent feed'), () => {
  const database = useFreshDatabase();
  let stores: PostgresStores;
  let worker: RunQueue;
  let client: RunQueue;
  let feed: PgEventFeed;
  beforeAll(async () => {
    stores = await openPostgresStores(database.url());
    worker = await RunQueue.open(database.url(), { name: 'worker' });
    client = await RunQueue.open(database.url(), { name: 'client', supervise: false });
    // A check interval longer than the test: only the follower's own catch-up can save it.
    feed = new PgEventFeed(database.url(), stores.events, { checkIntervalMs: 600_000 });
    await feed.start();
  });
  afterAll(async () => {
    await feed?.stop();
    await Promise.all([worker?.stop(2000), client?.stop(2000)]);
    await stores?.close();
  });

  it('catches up by seq and ends only when the run has ended, having handed on every event once, in order', async () => {
    const plan = makePlan({ id: 'P1' });
    await stores.plans.insert(plan);
    const status = { decisionId: 'D1', status: 'running' } as const;
    let runEnded = 0;
    await worker.work({ concurrency: 1 }, async (planId) => {
      for (let i = 0; i < 10; i += 1) await stores.events.appendNext(planId, 'decision_status', status);
      // The feed falls silent mid-run, for longer than the follower's patience.
      await stores.db.query('ALTER TABLE events DISABLE TRIGGER events_announce');
      for (let i = 0; i < 30; i += 1) await stores.events.appendNext(planId, 'decision_status', status);
      await sleep(3_000);
      for (let i = 0; i < 10; i += 1) await stores.events.appendNext(planId, 'decision_status', status);
      runEnded = Date.now();
    });
    const dispatch = new TeamDispatch(async () => client, async () => feed, stores);
    const seen: StreamEvent[] = [];
    let firstCatchUp = 0;
    const from = await dispatch.lastSeq('P1');
    await dispatch.enqueue('P1', { reason: 'run' });
    const followed = dispatch.follow('P1', from, (event) => {
      seen.push(event);
      if (event.seq === 11) firstCatchUp = Date.now();
    });
    const ended = await followed;
    try {
      expect(ended.id).toBe('P1');
      expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      // The silent part was read during the run, not only at its end.
      expect(firstCatchUp).toBeGreaterThan(0);
      expect(firstCatchUp).toBeLessThan(runEnded);
    } finally {
      await stores.db.query('ALTER TABLE events ENABLE TRIGGER events_announce');
    }
  }, 60_000);
});
