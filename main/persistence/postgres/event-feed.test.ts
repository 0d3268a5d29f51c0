import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { type FeedStatus, PgEventFeed } from './event-feed';
import { openPostgresStores, type PostgresStores } from './stores';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

const step = (index: number) => ({ decisionId: '01DECISION', index: index + 1, total: 10_000, description: `step ${index}` });

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const seqsOf = (events: StreamEvent[]) => events.map((event) => event.seq);
const oneTo = (n: number, from = 1) => Array.from({ length: n - from + 1 }, (_, i) => from + i);

describe.skipIf(!testPostgres().url)(postgresSuiteName('PgEventFeed'), () => {
  const db = usePostgresStores();
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A feed over its own pool, as a console process would have, and another process's stores to append with. */
  async function setup(options: ConstructorParameters<typeof PgEventFeed>[2] = {}) {
    const reader = await openPostgresStores(db.url());
    const writer = await openPostgresStores(db.url());
    const statuses: FeedStatus[] = [];
    const errors: unknown[] = [];
    const feed = new PgEventFeed(db.url(), reader.events, { onStatus: (s) => statuses.push(s), onError: (e) => errors.push(e), ...options });
    await feed.start();
    cleanup.push(() => reader.close(), () => writer.close(), () => feed.stop());
    return { feed, writer, statuses, errors };
  }

  function collect(feed: PgEventFeed, planId: string, afterSeq = 0) {
    const events: StreamEvent[] = [];
    const stop = feed.subscribe(planId, afterSeq, (event) => events.push(event));
    return { events, stop };
  }

  const append = (stores: PostgresStores, planId: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => stores.events.appendNext(planId, 'execute_step', step(i))));

  it("catches up on a plan's stored events, then delivers another process's new ones live, in order", async () => {
    const { feed, writer, errors } = await setup();
    await append(writer, '01PLAN', 5);
    const all = collect(feed, '01PLAN');
    const late = collect(feed, '01PLAN', 3);
    const other = collect(feed, '01OTHER');
    await waitFor('the stored events', () => all.events.length === 5);
    await append(writer, '01PLAN', 20);
    await writer.events.appendNext('01OTHER', 'strategize_started', {});
    await waitFor('the live events', () => all.events.length === 25 && late.events.length === 22 && other.events.length === 1);
    expect(seqsOf(all.events)).toEqual(oneTo(25));
    expect(seqsOf(late.events)).toEqual(oneTo(25, 4));
    expect(all.events[7]).toEqual((await writer.events.list('01PLAN', 7, 1))[0]);
    expect(other.events.map((e) => e.type)).toEqual(['strategize_started']);
    // Resubscribing after the last seq seen gives what came since, and nothing before.
    all.stop();
    await append(writer, '01PLAN', 3);
    const resumed = collect(feed, '01PLAN', 25);
    await waitFor('the events since', () => resumed.events.length === 3);
    expect(seqsOf(resumed.events)).toEqual([26, 27, 28]);
    expect(seqsOf(all.events)).toEqual(oneTo(25));
    expect(errors).toEqual([]);
  });

  it("never delivers a rolled-back transaction's events, and delivers the committed one that reuses its seq", async () => {
    const { feed, writer } = await setup();
    const sub = collect(feed, '01PLAN');
    await writer.events.appendNext('01PLAN', 'execute_step', step(1));
    await expect(
      writer.db.transaction(async () => {
        await writer.events.appendNext('01PLAN', 'execute_step', step(2));
        await writer.events.appendNext('01PLAN', 'execute_step', step(3));
        throw new Error('the step failed');
      }),
    ).rejects.toThrow(/the step failed/);
    await writer.events.appendNext('01PLAN', 'execute_step', step(4));
    await waitFor('two events', () => sub.events.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sub.events.map((e) => [e.seq, (e.data as { index: number }).index])).toEqual([
      [1, 2],
      [2, 5],
    ]);
  });

  it('reconnects after its listening backend is terminated mid-stream, and delivers every event exactly once', async () => {
    const { feed, writer, statuses } = await setup({ backoffMs: { initial: 50, max: 500 } });
    const sub = collect(feed, '01PLAN');
    const admin = new pg.Client({ connectionString: db.url() });
    await admin.connect();
    cleanup.push(() => admin.end());
    let writing = true;
    let written = 0;
    const writing_ = (async () => {
      while (writing) {
        await writer.events.appendNext('01PLAN', 'execute_step', step(written));
        written += 1;
      }
    })();
    await waitFor('some events', () => sub.events.length >= 50);
    const killed = await admin.query("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'agents event feed'");
    expect(killed.rows).toEqual([{ ok: true }]);
    await waitFor('the reconnect', () => statuses.filter((s) => s.state === 'connected').length === 2);
    const atReconnect = written;
    await waitFor('events after the reconnect', () => sub.events.length > atReconnect + 20);
    writing = false;
    await writing_;
    await waitFor('every event', () => sub.events.length === written);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seqsOf(sub.events)).toEqual(oneTo(written));
    const drop = statuses.find((s) => s.state === 'disconnected');
    expect(drop).toMatchObject({ state: 'disconnected', attempt: 1 });
    expect((drop as { error: string }).error).toMatch(/terminat/i);
  });

  it("delivers every plan's new events to a team-wide subscriber, plans made later from their first, across a reconnect", async () => {
    const { feed, writer, statuses } = await setup({ backoffMs: { initial: 1000, max: 1000 } });
    await append(writer, '01OLD', 3);
    await append(writer, '01RESUMED', 4);
    const events: StreamEvent[] = [];
    const stop = await feed.subscribeAll((event) => events.push(event), new Map([['01RESUMED', 2]]));
    await append(writer, '01OLD', 2);
    await append(writer, '01NEW', 2);
    const got = (planId: string) => seqsOf(events.filter((e) => e.planId === planId));
    await waitFor('the first events', () => events.length === 6);
    expect(got('01OLD')).toEqual([4, 5]);
    expect(got('01RESUMED')).toEqual([3, 4]);
    expect(got('01NEW')).toEqual([1, 2]);

    // A plan begun while the listener is down is caught up once it is back.
    const admin = new pg.Client({ connectionString: db.url() });
    await admin.connect();
    cleanup.push(() => admin.end());
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agents event feed'");
    await waitFor('the drop', () => statuses.some((s) => s.state === 'disconnected'));
    await append(writer, '01WHILE_DOWN', 3);
    await append(writer, '01OLD', 1);
    expect(feed.connected).toBe(false);
    await waitFor('the catch-up', () => events.length === 10);
    expect(got('01WHILE_DOWN')).toEqual([1, 2, 3]);
    expect(got('01OLD')).toEqual([4, 5, 6]);
    stop();
    await append(writer, '01OLD', 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toHaveLength(10);
  });

  it('delivers 5,000 events appended fast by two processes to two plans, all and in order', async () => {
    const { feed, writer } = await setup();
    const second = await openPostgresStores(db.url());
    cleanup.push(() => second.close());
    const a = collect(feed, '01A');
    const b = collect(feed, '01B');
    const started = Date.now();
    for (let round = 0; round < 25; round += 1) await Promise.all([append(writer, round % 2 ? '01A' : '01B', 100), append(second, round % 2 ? '01B' : '01A', 100)]);
    await waitFor('all 5,000', () => a.events.length + b.events.length === 5000, 30_000);
    const elapsed = Date.now() - started;
    expect(seqsOf(a.events)).toEqual(oneTo(2500));
    expect(seqsOf(b.events)).toEqual(oneTo(2500));
    console.log(`event feed: 5,000 events appended and delivered in ${elapsed} ms`);
  });
});
