import { afterEach, describe, expect, it } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import type { StreamEvent } from '../../shared/events';
import { EventPublisher } from '../engine/ports/event-stream';
import { InMemoryEventLog } from '../engine/test-support/in-memory-stores';
import { EventHub, type EventSink, type EventSource } from './event-hub';

/** A PlanService-shaped source over an in-memory log; plans exist once they have an event. */
function source(): EventSource & { publisher: EventPublisher; reads: number } {
  const log = new InMemoryEventLog();
  const publisher = new EventPublisher(log);
  const src = {
    publisher,
    reads: 0,
    events: publisher,
    async eventsAfter(planId: string, afterSeq: number, limit: number) {
      src.reads += 1;
      return { events: await log.list(planId, afterSeq, limit), lastSeq: await log.lastSeq(planId) };
    },
    async get(planId: string) {
      if (await log.lastSeq(planId) === 0) throw new Error(`no plan ${planId}`);
      return {};
    },
  };
  return src;
}

/** A sink that can be told it is congested, and drained by hand. */
function sink() {
  const received: StreamEvent[] = [];
  let drained: (() => void) | null = null;
  const s = {
    received,
    congested: false,
    send: (event: StreamEvent) => void received.push(event),
    isCongested: () => s.congested,
    drain() {
      s.congested = false;
      const callback = drained;
      drained = null;
      callback?.();
    },
    get waitingForDrain() {
      return drained !== null;
    },
  };
  const asSink: EventSink = {
    send: s.send,
    congested: () => s.congested,
    whenDrained: (callback) => {
      drained = callback;
      return () => {
        if (drained === callback) drained = null;
      };
    },
  };
  return { s, asSink };
}

const seqs = (events: StreamEvent[], planId?: string) => events.filter((e) => !planId || e.planId === planId).map((e) => e.seq);
const tick = () => new Promise((resolve) => setImmediate(resolve));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('EventHub', () => {
  let hub: EventHub | undefined;
  afterEach(() => hub?.dispose());

  it('sends a subscriber only the types it asked for, without reading the skipped ones back from the database', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src);
    const { s, asSink } = sink();
    await hub.subscribe({ planId: null, types: ['state_changed', 'plan_created'] }, asSink);
    const all = sink();
    await hub.subscribe({ planId: 'A', afterSeq: 1 }, all.asSink);
    await tick();
    const reads = src.reads;
    for (let i = 0; i < 50; i++) await src.publisher.publish('A', 'execute_step', sampleData('execute_step', { index: i + 1 }));
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed', { to: 'complete' }));
    await src.publisher.publish('B', 'plan_created', sampleData('plan_created'));
    expect(s.received.map((e) => [e.planId, e.type])).toEqual([
      ['A', 'state_changed'],
      ['B', 'plan_created'],
    ]);
    expect(seqs(all.s.received)).toEqual(range(2, 52));
    expect(src.reads).toBe(reads);
  });

  it('catches a plan subscriber up from the database after afterSeq, then goes live without a gap or a duplicate', async () => {
    const src = source();
    for (let i = 0; i < 25; i++) await src.publisher.publish('A', 'execute_step', sampleData('execute_step', { index: i + 1 }));
    hub = new EventHub(src, { pageSize: 4 });
    const { s, asSink } = sink();
    await hub.subscribe({ planId: 'A', afterSeq: 10 }, asSink);
    // Events published before the deferred catch-up runs are read from the database, not lost.
    await src.publisher.publish('A', 'execute_step', sampleData('execute_step'));
    expect(s.received).toEqual([]);
    await tick();
    await src.publisher.publish('A', 'execute_step', sampleData('execute_step'));
    expect(seqs(s.received)).toEqual(range(11, 27));
  });

  it('filters by plan, and a null subscription follows every plan live from now on', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    await src.publisher.publish('B', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src);
    const one = sink();
    const all = sink();
    await hub.subscribe({ planId: 'B', afterSeq: 0 }, one.asSink);
    await hub.subscribe({ planId: null, afterSeq: 0 }, all.asSink);
    await tick();
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    await src.publisher.publish('B', 'state_changed', sampleData('state_changed'));
    expect(one.s.received.map((e) => [e.planId, e.seq])).toEqual([
      ['B', 1],
      ['B', 2],
    ]);
    expect(all.s.received.map((e) => [e.planId, e.seq])).toEqual([
      ['A', 2],
      ['B', 2],
    ]);
  });

  it('refuses a subscription to a plan that does not exist', async () => {
    const src = source();
    hub = new EventHub(src);
    await expect(hub!.subscribe({ planId: 'nope', afterSeq: 0 }, sink().asSink)).rejects.toThrow(/no plan/);
    expect(hub.size).toBe(0);
  });

  it('keeps a slow subscriber: drops its live queue while congested and catches it up by seq once drained', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src, { pageSize: 7 });
    const { s, asSink } = sink();
    await hub.subscribe({ planId: 'A', afterSeq: 0 }, asSink);
    await tick();
    s.congested = true;
    for (let i = 0; i < 50; i++) await src.publisher.publish('A', 'execute_step', sampleData('execute_step', { index: i + 1 }));
    expect(seqs(s.received)).toEqual([1]);
    expect(s.waitingForDrain).toBe(true);
    const readsBefore = src.reads;
    s.drain();
    expect(src.reads).toBeGreaterThan(readsBefore);
    // The catch-up reads the database asynchronously; what is published meanwhile comes after it, in order.
    await src.publisher.publish('A', 'execute_complete', sampleData('execute_complete'));
    await tick();
    expect(seqs(s.received)).toEqual(range(1, 52));
  });

  it('pauses a catch-up that congests the sink again, and resumes where it stopped', async () => {
    const src = source();
    for (let i = 0; i < 30; i++) await src.publisher.publish('A', 'execute_step', sampleData('execute_step'));
    hub = new EventHub(src, { pageSize: 5 });
    const received: StreamEvent[] = [];
    let drained: (() => void) | null = null;
    // Congested after every 10 events until drained.
    let sinceDrain = 0;
    await hub.subscribe(
      { planId: 'A', afterSeq: 0 },
      {
        send: (e) => {
          received.push(e);
          sinceDrain += 1;
        },
        congested: () => sinceDrain >= 10,
        whenDrained: (callback) => {
          drained = callback;
          return () => (drained = null);
        },
      },
    );
    await tick();
    expect(seqs(received)).toEqual(range(1, 10));
    await src.publisher.publish('A', 'execute_step', sampleData('execute_step'));
    for (let round = 0; round < 5 && drained; round++) {
      sinceDrain = 0;
      const callback: () => void = drained;
      drained = null;
      callback();
      await tick();
    }
    expect(seqs(received)).toEqual(range(1, 31));
  });

  it('catches a null subscriber up per plan after congestion, including plans it had not seen yet', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src);
    const { s, asSink } = sink();
    await hub.subscribe({ planId: null, afterSeq: 0 }, asSink);
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    s.congested = true;
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    await src.publisher.publish('C', 'plan_created', sampleData('plan_created'));
    await src.publisher.publish('C', 'state_changed', sampleData('state_changed'));
    s.drain();
    await tick();
    expect(seqs(s.received, 'A')).toEqual([2, 3]);
    expect(seqs(s.received, 'C')).toEqual([1, 2]);
  });

  it('fills a gap from the database (another process wrote events in between)', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src);
    const { s, asSink } = sink();
    await hub.subscribe({ planId: 'A', afterSeq: 0 }, asSink);
    await tick();
    // Written straight to the log, as a CLI process on the same database would.
    await (src.publisher.log as InMemoryEventLog).appendNext('A', 'execute_step', sampleData('execute_step'));
    await (src.publisher.log as InMemoryEventLog).appendNext('A', 'execute_step', sampleData('execute_step'));
    await src.publisher.publish('A', 'execute_complete', sampleData('execute_complete'));
    await tick();
    expect(seqs(s.received)).toEqual([1, 2, 3, 4]);
  });

  it('drops a subscription whose sink throws, and stops everything on dispose', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    const errors: unknown[] = [];
    hub = new EventHub(src, { onError: (e) => errors.push(e) });
    await hub.subscribe(
      { planId: null, afterSeq: 0 },
      {
        send: () => {
          throw new Error('socket closed');
        },
        congested: () => false,
        whenDrained: () => () => undefined,
      },
    );
    const { s, asSink } = sink();
    const kept = await hub.subscribe({ planId: null, afterSeq: 0 }, asSink);
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    expect(errors).toHaveLength(1);
    expect(hub.size).toBe(1);
    kept.dispose();
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    expect(seqs(s.received)).toEqual([2, 3]);
    hub.dispose();
    expect(hub.size).toBe(0);
  });

  it('sends nothing after dispose, even from a pending catch-up', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    hub = new EventHub(src);
    const { s, asSink } = sink();
    const sub = await hub.subscribe({ planId: 'A', afterSeq: 0 }, asSink);
    sub.dispose();
    await tick();
    await src.publisher.publish('A', 'state_changed', sampleData('state_changed'));
    expect(s.received).toEqual([]);
  });
});

describe('EventHub over a database that another process writes', () => {
  it('checks for other processes\' events only while someone is subscribed', async () => {
    const src = source();
    await src.publisher.publish('A', 'plan_created', sampleData('plan_created'));
    let checks = 0;
    const watched = { ...src, externalEvents: { version: async () => ++checks, lastSeqs: async () => new Map([['A', 1]]) } };
    const hub = new EventHub(watched, { pollMs: 5 });
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      await wait(30);
      expect(checks).toBe(0);
      const subscription = await hub.subscribe({ planId: null }, sink().asSink);
      await wait(40);
      expect(checks).toBeGreaterThan(1);
      subscription.dispose();
      const after = checks;
      await wait(40);
      expect(checks).toBe(after);
    } finally {
      hub.dispose();
    }
  });


  it('delivers events another connection commits, in order, within 500 ms', async () => {
    const { tempApp, planYaml, waitFor } = await import('../app/test-support');
    const { openApp } = await import('../app/open-app');
    const { writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    const temp = await tempApp();
    // A second connection to the same file stands in for the CLI: its events never pass through this process's publisher.
    const other = await openApp({ dataDir: temp.app.dataDir, sleep: () => Promise.resolve() });
    const hub = new EventHub(temp.app.service, { pollMs: 50 });
    try {
      const file = path.join(temp.root, 'plan.yaml');
      writeFileSync(file, planYaml(temp.project, { steps: 3 }));
      const plan = await other.service.createFromFile(file);
      const one = sink();
      const all = sink();
      const subscription = await hub.subscribe({ planId: plan.id, afterSeq: 0 }, one.asSink);
      await hub.subscribe({ planId: null, types: ['state_changed'] }, all.asSink);
      await tick();
      const started = Date.now();
      await other.service.run(plan.id);
      const last = (await other.service.eventsAfter(plan.id, 0, 0)).lastSeq;
      await waitFor(() => one.s.received.length === last, 2_000);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(seqs(one.s.received)).toEqual(range(1, last));
      expect(all.s.received.at(-1)?.data).toMatchObject({ to: 'queued', phase: 'apply' });

      // One event committed elsewhere reaches a subscriber in well under 500 ms.
      const at = Date.now();
      await other.service.events.publish(plan.id, 'paused', sampleData('paused'));
      await waitFor(() => one.s.received.length === last + 1, 2_000);
      expect(Date.now() - at).toBeLessThan(500);
      subscription.dispose();
    } finally {
      hub.dispose();
      other.close();
      await temp.dispose();
    }
  });
});
