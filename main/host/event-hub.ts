import type { StreamEvent } from '../../shared/events';

/** Where a subscription's events go: an IPC sender, or one WebSocket. */
export interface EventSink {
  send(event: StreamEvent): void;
  /** True while the transport has too much unsent (a WebSocket's bufferedAmount over a threshold). */
  congested(): boolean;
  /** Calls back once the transport has drained; returns a cancel. Needed only by sinks that can congest. */
  whenDrained(callback: () => void): () => void;
}

/** What the hub reads: the live stream, and the database for catching up. PlanService fits. */
export interface EventSource {
  events: { subscribe(listener: (event: StreamEvent) => void): () => void };
  eventsAfter(planId: string, afterSeq: number, limit: number): Promise<{ events: StreamEvent[]; lastSeq: number }>;
  get(planId: string): Promise<unknown>;
  /** Events other processes write (the CLI running a plan against the same database). */
  externalEvents?: { version(): Promise<number>; lastSeqs(): Promise<Map<string, number>> };
}

/**
 * Every plan's events as a database announces them (team mode: PostgreSQL's LISTEN/NOTIFY, with
 * catch-up by seq across its own reconnections): `PgEventFeed` fits. Resolves to the unsubscribe
 * once every event committed from then on will be delivered.
 */
export interface EventFeed {
  subscribeAll(listener: (event: StreamEvent) => void): Promise<() => void>;
}

export interface HubSubscription {
  dispose(): void;
}

export interface EventHubOptions {
  /** Events read from the database per page when catching up. */
  pageSize?: number;
  /** Told when a sink throws (a socket that closed under us; the subscription is then dropped) or a catch-up read fails. */
  onError?: (error: unknown) => void;
  /** How often the database is checked for other processes' events while anyone is subscribed. */
  pollMs?: number;
  /**
   * Every process's events from a feed, this one's included, instead of the live stream and
   * polling (team mode); opened at the first subscription and kept for the hub's life.
   */
  feed?: () => Promise<EventFeed>;
}

class Subscriber {
  /** Last seq delivered per plan; an event at or below it is a duplicate. */
  private readonly delivered = new Map<string, number>();
  /** Plans with events not yet delivered, and the seq after which to read them from the database. */
  private readonly missed = new Map<string, number>();
  /** The newest live seq per plan that arrived while lagging: a catch-up reads on until it has it. */
  private readonly newest = new Map<string, number>();
  private lagging = false;
  /** A catch-up is reading (it awaits the database); another request for one makes it go round again. */
  private catching = false;
  private again = false;
  private cancelDrain: (() => void) | null = null;
  private scheduled: ReturnType<typeof setImmediate> | null = null;
  disposed = false;

  constructor(
    readonly planId: string | null,
    /** Only events of these types are sent; the others still count as delivered. */
    private readonly types: ReadonlySet<string> | null,
    private readonly sink: EventSink,
    private readonly source: EventSource,
    private readonly pageSize: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts behind: everything after `afterSeq` comes from the database before anything live. */
  startFrom(planId: string, afterSeq: number): void {
    this.lagging = true;
    this.missed.set(planId, afterSeq);
    this.delivered.set(planId, afterSeq);
    // Deferred, so the transport can confirm the subscription before its first event.
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      this.catchUp();
    });
  }

  onLive(event: StreamEvent): void {
    if (this.disposed || (this.planId !== null && event.planId !== this.planId)) return;
    if (this.lagging) {
      this.noteMissed(event);
      return;
    }
    const last = this.delivered.get(event.planId);
    if (last !== undefined && event.seq <= last) return;
    if (this.sink.congested()) {
      // Drop the live queue; the database has every event, so read them from there once drained.
      this.noteMissed(event);
      this.lagging = true;
      this.waitForDrain();
      return;
    }
    if (last !== undefined && event.seq > last + 1) {
      // A gap: the events in between are in the database already; read them first.
      this.noteMissed(event);
      this.lagging = true;
      this.catchUp();
      return;
    }
    this.deliver(event);
  }

  dispose(): void {
    this.disposed = true;
    this.cancelDrain?.();
    this.cancelDrain = null;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
  }

  private noteMissed(event: StreamEvent): void {
    if (event.seq > (this.newest.get(event.planId) ?? 0)) this.newest.set(event.planId, event.seq);
    if (!this.missed.has(event.planId)) this.missed.set(event.planId, this.delivered.get(event.planId) ?? event.seq - 1);
  }

  private waitForDrain(): void {
    this.cancelDrain?.();
    this.cancelDrain = this.sink.whenDrained(() => {
      this.cancelDrain = null;
      this.catchUp();
    });
  }

  /**
   * Reads what was missed from the database in seq order. The reads are awaited, and live events
   * keep arriving meanwhile (noted, not sent): a plan's catch-up ends only once it has delivered
   * the newest of them, so none slips between the last page and going live again. One at a time.
   */
  private catchUp(): void {
    if (this.catching) {
      this.again = true;
      return;
    }
    this.catching = true;
    this.readMissed()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.catching = false;
        if (this.again && !this.disposed) {
          this.again = false;
          this.catchUp();
        }
      });
  }

  private async readMissed(): Promise<void> {
    while (!this.disposed && this.missed.size > 0) {
      const [planId, afterSeq] = this.missed.entries().next().value as [string, number];
      let after = afterSeq;
      for (;;) {
        if (this.sink.congested()) {
          this.missed.set(planId, after);
          this.waitForDrain();
          return;
        }
        let page: StreamEvent[];
        try {
          page = (await this.source.eventsAfter(planId, after, this.pageSize)).events;
        } catch (error) {
          // The plan is gone (or the database closed): nothing more to read for it.
          this.onError(error);
          break;
        }
        if (this.disposed) return;
        for (const event of page) if (!this.deliver(event)) return;
        if (page.length > 0) after = page[page.length - 1].seq;
        // A live event committed while the page was read comes in the next one.
        if (page.length === 0 || (page.length < this.pageSize && (this.newest.get(planId) ?? 0) <= (this.delivered.get(planId) ?? after))) break;
      }
      this.missed.delete(planId);
      this.newest.delete(planId);
    }
    if (this.disposed) return;
    this.lagging = false;
    this.cancelDrain?.();
    this.cancelDrain = null;
  }

  private deliver(event: StreamEvent): boolean {
    const last = this.delivered.get(event.planId);
    if (last !== undefined && event.seq <= last) return true;
    if (!this.types || this.types.has(event.type)) {
      try {
        this.sink.send(event);
      } catch (error) {
        this.onError(error);
        this.dispose();
        return false;
      }
    }
    this.delivered.set(event.planId, event.seq);
    return true;
  }
}

/**
 * Fans the engine's stream events out to subscribers, one plan's or all plans'. A subscriber that
 * asks for events after a seq is first caught up from the database; one that falls behind (a slow
 * socket) loses its live queue, never its events: it is caught up from the database once drained.
 */
export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private readonly unsubscribe: () => void;
  private readonly pageSize: number;
  private readonly pollMs: number;
  private readonly onError: (error: unknown) => void;
  /** The last seq per plan that every subscriber has been offered, live or from the database. */
  private readonly seen = new Map<string, number>();
  private version = 0;
  private poller: ReturnType<typeof setInterval> | null = null;
  /** A poll is reading: the timer's next tick does not start another. */
  private polling = false;
  private starting = false;
  private readonly feed: (() => Promise<EventFeed>) | undefined;
  /** The feed's subscription once made; retried at the next subscription when it failed. */
  private feedStarted: Promise<void> | null = null;
  private feedStop: (() => void) | null = null;
  private disposed = false;

  constructor(
    private readonly source: EventSource,
    options: EventHubOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 500;
    this.pollMs = options.pollMs ?? 100;
    this.onError = options.onError ?? (() => undefined);
    this.feed = options.feed;
    // With a feed, this process's own events come through it too, in seq order with every other
    // process's: taken live as well, one of ours could overtake a worker's earlier event of the
    // same plan, which a subscriber to every plan would then drop as already seen.
    this.unsubscribe = this.feed
      ? () => undefined
      : source.events.subscribe((event) => {
          if (event.seq > (this.seen.get(event.planId) ?? 0)) this.seen.set(event.planId, event.seq);
          this.fanOut(event);
        });
  }

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * `planId: null` follows every plan from now on (seq is per plan, so `afterSeq` has no meaning
   * there); a plan's subscription replays everything after `afterSeq` first. Throws if the plan
   * does not exist.
   */
  async subscribe(subscription: { planId: string | null; afterSeq?: number; types?: readonly string[] }, sink: EventSink): Promise<HubSubscription> {
    if (subscription.planId !== null) await this.source.get(subscription.planId);
    const types = subscription.types ? new Set(subscription.types) : null;
    const subscriber = new Subscriber(subscription.planId, types, sink, this.source, this.pageSize, this.onError);
    this.subscribers.add(subscriber);
    // Before the catch-up starts: what commits after the feed (or the poll) is ready reaches it live,
    // what committed before is in the database for the catch-up.
    if (this.feed) await this.startFeed(this.feed);
    else await this.startPolling();
    if (subscription.planId !== null) subscriber.startFrom(subscription.planId, subscription.afterSeq ?? 0);
    return {
      dispose: () => {
        subscriber.dispose();
        this.subscribers.delete(subscriber);
        if (this.subscribers.size === 0) this.stopPolling();
      },
    };
  }

  /**
   * Looks once for events that other processes committed, and hands them to subscribers in seq
   * order. Cheap when nothing changed: one pragma read. Runs on a timer while anyone is subscribed.
   */
  async pollExternal(): Promise<void> {
    const external = this.source.externalEvents;
    if (!external || this.polling) return;
    this.polling = true;
    try {
      const version = await external.version();
      if (version === this.version) return;
      this.version = version;
      for (const [planId, last] of await external.lastSeqs()) {
        let after = this.seen.get(planId) ?? 0;
        while (after < last) {
          const page = (await this.source.eventsAfter(planId, after, this.pageSize)).events;
          if (page.length === 0) break;
          for (const event of page) this.fanOut(event);
          after = page[page.length - 1].seq;
          this.seen.set(planId, Math.max(after, this.seen.get(planId) ?? 0));
        }
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.polling = false;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.stopPolling();
    this.feedStop?.();
    this.feedStop = null;
    this.unsubscribe();
    for (const subscriber of this.subscribers) subscriber.dispose();
    this.subscribers.clear();
  }

  private fanOut(event: StreamEvent): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.disposed) this.subscribers.delete(subscriber);
      else subscriber.onLive(event);
    }
  }

  /** Subscribes to the feed once; a failure is told and the next subscription tries again (its own catch-up still reads the database). */
  private async startFeed(open: () => Promise<EventFeed>): Promise<void> {
    this.feedStarted ??= (async () => {
      const stop = await (await open()).subscribeAll((event) => this.fanOut(event));
      if (this.disposed) stop();
      else this.feedStop = stop;
    })().catch((error: unknown) => {
      this.feedStarted = null;
      this.onError(error);
    });
    await this.feedStarted;
  }

  private async startPolling(): Promise<void> {
    const external = this.source.externalEvents;
    if (this.poller || this.starting || !external) return;
    this.starting = true;
    // Start from what is stored now: a subscriber that wants older events asks with afterSeq.
    try {
      this.version = await external.version();
      for (const [planId, last] of await external.lastSeqs()) if (last > (this.seen.get(planId) ?? 0)) this.seen.set(planId, last);
    } catch (error) {
      this.onError(error);
      return;
    } finally {
      this.starting = false;
    }
    if (this.poller || this.subscribers.size === 0) return;
    this.poller = setInterval(() => void this.pollExternal(), this.pollMs);
    this.poller.unref?.();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }
}
