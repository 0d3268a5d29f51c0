import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { sampleData } from '../../../shared/test-support/sample-events';
import { type App, openApp } from '../../app/open-app';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { type EventSink, EventHub } from '../event-hub';
import { waitFor } from '../../app/test-support';

function sink(): { received: StreamEvent[]; asSink: EventSink } {
  const received: StreamEvent[] = [];
  return { received, asSink: { send: (event) => void received.push(event), congested: () => false, whenDrained: () => () => undefined } };
}

const seqs = (events: readonly StreamEvent[]) => events.map((e) => e.seq);

describe.skipIf(!testPostgres().url)(postgresSuiteName('EventHub over a team database: the feed, not a poll'), () => {
  const database = useFreshDatabase();
  const dirs: string[] = [];
  const apps: App[] = [];
  const open = async (migrate: boolean) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'agents-hub-feed-'));
    dirs.push(dataDir);
    const app = await openApp({ dataDir, database: database.url(), migrate, env: {} });
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("delivers another process's events and this one's, each once and in order, through one feed subscription", async () => {
    const consoleApp = await open(true);
    // Another process on the same database: its events never pass through the console's publisher.
    const other = await open(false);
    let feedsOpened = 0;
    const hub = new EventHub(consoleApp.service, {
      feed: async () => {
        feedsOpened += 1;
        return consoleApp.team!.feed();
      },
    });
    try {
      const plan = await other.service.createFromContent({ content: 'name: fed\ndefinitionOfDone: "- one"\n' }, tmpdir());
      const before = (await other.service.eventsAfter(plan.id, 0, 0)).lastSeq;
      const one = sink();
      const every = sink();
      await hub.subscribe({ planId: plan.id, afterSeq: 0 }, one.asSink);
      await hub.subscribe({ planId: null }, every.asSink);
      // The other process appends five in one transaction, which holds the plan's seq counter; this
      // console's own event waits for it and commits just after. Announced at once in this process,
      // it would overtake the five, which the feed reads only once notified.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const batch = other.service.lifecycle.unit(async () => {
        for (let i = 0; i < 5; i += 1) await other.service.events.publish(plan.id, 'paused', sampleData('paused'));
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const mine = consoleApp.service.events.publish(plan.id, 'paused', sampleData('paused'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await Promise.all([batch, mine]);
      await other.service.events.publish(plan.id, 'paused', sampleData('paused'));
      const last = before + 7;
      await waitFor(() => one.received.length >= last && every.received.length >= 7, 15_000).catch(() => {
        throw new Error(`by then: plan ${seqs(one.received).join(',')} of ${last}; every ${seqs(every.received).join(',')} after ${before}`);
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seqs(one.received)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      // Following every plan starts from now: the events after the subscription, each once.
      expect(seqs(every.received)).toEqual(Array.from({ length: 7 }, (_, i) => before + i + 1));
      expect(feedsOpened).toBe(1);

      hub.dispose();
      await other.service.events.publish(plan.id, 'paused', sampleData('paused'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(one.received).toHaveLength(last);
    } finally {
      hub.dispose();
    }
  });
});
