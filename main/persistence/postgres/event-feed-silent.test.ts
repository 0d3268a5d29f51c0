import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { PgEventFeed } from './event-feed';
import { openPostgresStores, type PostgresStores } from './stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from './test-support/database';

/** The feed's connection stays up but no notice comes (the database's NOTIFY trigger disabled): its periodic check reads by seq. */
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgEventFeed under silence'), () => {
  const database = useFreshDatabase();
  let stores: PostgresStores;
  let feed: PgEventFeed;
  beforeAll(async () => {
    stores = await openPostgresStores(database.url());
    feed = new PgEventFeed(database.url(), stores.events, { checkIntervalMs: 200 });
    await feed.start();
  });
  afterAll(async () => {
    await stores.db.query('ALTER TABLE events ENABLE TRIGGER events_announce');
    await feed?.stop();
    await stores?.close();
  });

  it("delivers what was stored while silent, in order, to a plan's subscription and to every plan's", async () => {
    const one: number[] = [];
    const all: StreamEvent[] = [];
    feed.subscribe('P1', 0, (event) => one.push(event.seq));
    const stop = await feed.subscribeAll((event) => all.push(event));
    await stores.db.query('ALTER TABLE events DISABLE TRIGGER events_announce');
    for (let i = 0; i < 5; i += 1) await stores.events.appendNext('P1', 'decision_status', { decisionId: 'D1', status: 'running' });
    await stores.events.appendNext('P2', 'decision_status', { decisionId: 'D2', status: 'running' });
    const until = Date.now() + 5_000;
    while ((one.length < 5 || all.length < 6) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    expect(one).toEqual([1, 2, 3, 4, 5]);
    expect(all.map((e) => `${e.planId}:${e.seq}`).sort()).toEqual(['P1:1', 'P1:2', 'P1:3', 'P1:4', 'P1:5', 'P2:1']);
  });
});
