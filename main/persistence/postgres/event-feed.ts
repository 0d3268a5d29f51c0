import pg from 'pg';
import type { StreamEvent } from '../../../shared/events';
import type { PgEventLog } from './event-log';
import { EVENT_CHANNEL } from './migrations';


export type FeedStatus =
  | { state: 'connected'; attempt: number }
  | { state: 'disconnected'; error: string; retryInMs: number; attempt: number };

export interface PgEventFeedOptions {
  /** Told when the LISTEN connection is made, and when it drops (with the wait before the next try). */
  onStatus?: (status: FeedStatus) => void;
  /** Told when a subscriber's listener throws or a catch-up read fails (it is retried on the next notice). */
  onError?: (error: unknown) => void;
  /** Reconnect backoff: first wait and ceiling, in ms (defaults 100 and 5,000). */
  backoffMs?: { initial: number; max: number };
  /** Rows read per catch-up query (default 1,000). */
  batch?: number;
  /** How often the idle LISTEN connection is checked with a query, so a silent drop is noticed (default 10 s). */
  checkIntervalMs?: number;
}

interface Subscription {
  planId: string;
  lastSeq: number;
  listener: (event: StreamEvent) => void;
  pumping: boolean;
  again: boolean;
  closed: boolean;
}

/** A subscription to every plan: one Subscription per plan, made when the plan is first seen. */
interface AllSubscription {
  plans: Map<string, Subscription>;
  listener: (event: StreamEvent) => void;
  closed: boolean;
}

/**
 * Each plan's events, live, for consoles and `plan run` in team mode: one dedicated LISTEN
 * connection (not from the pool) hears that a plan has new events, and each subscription reads
 * the rows after the last seq it delivered. Because a plan's appenders take its seq counter's row
 * lock until their transaction ends, seqs commit in order: once seq N is visible every seq below
 * it is too, so "read after my last seq" never skips one. A dropped connection is reported,
 * re-made with backoff, and every subscription catches up from its last seq.
 */
export class PgEventFeed {
  private client: pg.Client | undefined;
  private readonly subscriptions = new Set<Subscription>();
  private readonly everyPlan = new Set<AllSubscription>();
  private stopped = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private readonly backoff: { initial: number; max: number };
  private readonly batch: number;

  constructor(
    private readonly url: string,
    private readonly log: PgEventLog,
    private readonly options: PgEventFeedOptions = {},
  ) {
    this.backoff = options.backoffMs ?? { initial: 100, max: 5000 };
    this.batch = options.batch ?? 1000;
  }

  /** Makes the LISTEN connection; rejects when the first try fails (later drops are retried). */
  async start(): Promise<void> {
    await this.connect();
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /**
   * Delivers every event of `planId` after `afterSeq`, in seq order and once each: first those
   * stored, then the new ones as they commit. Returns the unsubscribe.
   */
  subscribe(planId: string, afterSeq: number, listener: (event: StreamEvent) => void): () => void {
    const sub: Subscription = { planId, lastSeq: afterSeq, listener, pumping: false, again: false, closed: false };
    this.subscriptions.add(sub);
    void this.pump(sub);
    return () => {
      sub.closed = true;
      this.subscriptions.delete(sub);
    };
  }

  /**
   * Delivers every plan's new events (a console listing the whole team's plans): those after
   * `from`'s seq for the plans it names, after the last stored seq for other plans stored now,
   * and all of any plan that has none yet. Each plan's in seq order, once each.
   */
  async subscribeAll(listener: (event: StreamEvent) => void, from: ReadonlyMap<string, number> = new Map()): Promise<() => void> {
    const group: AllSubscription = { plans: new Map(), listener, closed: false };
    for (const [planId, last] of await this.log.lastSeqs()) this.planOf(group, planId, from.get(planId) ?? last);
    for (const [planId, afterSeq] of from) this.planOf(group, planId, afterSeq);
    this.everyPlan.add(group);
    // Whatever committed while the seqs above were read was announced to nobody: look again.
    await this.resync(group);
    return () => {
      group.closed = true;
      for (const sub of group.plans.values()) sub.closed = true;
      this.everyPlan.delete(group);
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.checkTimer);
    for (const sub of this.subscriptions) sub.closed = true;
    this.subscriptions.clear();
    for (const group of this.everyPlan) for (const sub of group.plans.values()) sub.closed = true;
    this.everyPlan.clear();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'agents event feed', keepAlive: true });
    let dropped = false;
    const onDrop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.client === client) this.lost(error ?? new Error('the connection ended'));
    };
    client.on('error', onDrop);
    client.on('end', () => onDrop());
    client.on('notification', (message) => this.notified(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENT_CHANNEL}`);
    } catch (error) {
      dropped = true;
      await client.end().catch(() => {});
      throw error;
    }
    if (this.stopped) {
      await client.end();
      return;
    }
    this.client = client;
    this.options.onStatus?.({ state: 'connected', attempt: this.attempt });
    this.attempt = 0;
    clearInterval(this.checkTimer);
    // A connection that died without a word (a cable, a sleeping laptop) shows up as a failed query;
    // a feed that stayed up but went silent (notices not sent, or lost) is caught up by seq all the same.
    this.checkTimer = setInterval(() => {
      client.query('SELECT 1').then(
        () => this.catchUp(),
        (error: Error) => onDrop(error),
      );
    }, this.options.checkIntervalMs ?? 10_000);
    this.checkTimer.unref();
    // Whatever committed while there was no listener is read now.
    this.catchUp();
  }

  /** Reads what every subscription missed, whether or not a notice announced it. */
  private catchUp(): void {
    for (const sub of this.subscriptions) void this.pump(sub);
    for (const group of this.everyPlan) void this.resync(group);
  }

  private planOf(group: AllSubscription, planId: string, afterSeq = 0): Subscription {
    let sub = group.plans.get(planId);
    if (!sub) {
      sub = { planId, lastSeq: afterSeq, listener: group.listener, pumping: false, again: false, closed: group.closed };
      group.plans.set(planId, sub);
    }
    return sub;
  }

  /** Reads every plan's last seq and catches up the plans that moved (or are new) since the group last heard. */
  private async resync(group: AllSubscription): Promise<void> {
    try {
      for (const [planId, last] of await this.log.lastSeqs()) {
        const sub = this.planOf(group, planId);
        if (last > sub.lastSeq) void this.pump(sub);
      }
    } catch (error) {
      this.options.onError?.(error);
      if (!group.closed && !this.stopped) setTimeout(() => void this.resync(group), 500).unref();
    }
  }

  private lost(error: Error): void {
    this.client = undefined;
    clearInterval(this.checkTimer);
    if (this.stopped) return;
    this.attempt += 1;
    const retryInMs = Math.min(this.backoff.max, this.backoff.initial * 2 ** (this.attempt - 1));
    this.options.onStatus?.({ state: 'disconnected', error: error.message, retryInMs, attempt: this.attempt });
    this.retryTimer = setTimeout(() => {
      this.connect().catch((failure: Error) => this.lost(failure));
    }, retryInMs);
  }

  private notified(payload: string | undefined): void {
    if (!payload) return;
    const colon = payload.indexOf(':');
    const seq = Number(payload.slice(0, colon));
    const planId = payload.slice(colon + 1);
    for (const sub of this.subscriptions) if (sub.planId === planId && seq > sub.lastSeq) void this.pump(sub);
    for (const group of this.everyPlan) {
      const sub = this.planOf(group, planId);
      if (seq > sub.lastSeq) void this.pump(sub);
    }
  }

  /** Reads and delivers the subscription's events after its last seq; one read at a time, again if told meanwhile. */
  private async pump(sub: Subscription): Promise<void> {
    if (sub.pumping) {
      sub.again = true;
      return;
    }
    sub.pumping = true;
    try {
      do {
        sub.again = false;
        let page: StreamEvent[];
        do {
          page = await this.log.list(sub.planId, sub.lastSeq, this.batch);
          for (const event of page) {
            if (sub.closed) return;
            // Never twice, never backwards: a read that overlaps an earlier one only adds what is new.
            if (event.seq <= sub.lastSeq) continue;
            sub.lastSeq = event.seq;
            try {
              sub.listener(event);
            } catch (error) {
              this.options.onError?.(error);
            }
          }
        } while (page.length === this.batch && !sub.closed);
      } while (sub.again && !sub.closed);
    } catch (error) {
      // The pool could not read (the database restarting): try again shortly, whether or not a notice comes.
      this.options.onError?.(error);
      setTimeout(() => !sub.closed && !this.stopped && void this.pump(sub), 500).unref();
    } finally {
      sub.pumping = false;
    }
  }
}
