import { AsyncLocalStorage } from 'node:async_hooks';
import { ValidationError } from '../../../shared/errors';
import type { EventData, StreamCallback, StreamEvent, StreamEventOf, StreamEventType } from '../../../shared/events';

/** Where stream events are kept, in per-plan seq order. */
export interface EventLog {
  append(event: StreamEvent): Promise<void>;
  /** Gives the event the plan's next seq and stores it, atomically (several processes may write). */
  appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>>;
  list(planId: string, afterSeq?: number, limit?: number): Promise<StreamEvent[]>;
  lastSeq(planId: string): Promise<number>;
  /**
   * Optional, for logs that other processes also write (SQLite): a number that changes whenever
   * another connection commits, and every plan's last seq. A host polls these to notice events it
   * did not publish itself.
   */
  externalVersion?(): Promise<number>;
  lastSeqs?(): Promise<Map<string, number>>;
}


/** Emits one event of a plan; the data must fit its type's schema (shared/events.ts). */
export type Emit = <T extends StreamEventType>(type: T, data: EventData<T>) => Promise<StreamEventOf<T>>;

/** Gives every event its per-plan seq, keeps it in the log, and fans it out to subscribers. */
export class EventPublisher {
  private readonly listeners = new Set<StreamCallback>();
  /**
   * Inside deferDelivery: the deliveries waiting for its writes to commit. Kept per async context,
   * so a run's commit defers only its own events, never those another run publishes meanwhile.
   */
  private readonly pending = new AsyncLocalStorage<{ deliveries: (() => void)[]; open: boolean }>();

  constructor(readonly log: EventLog) {
    if (!log) throw new ValidationError('log', 'is required');
  }

  async publish<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>> {
    const event = await this.log.appendNext(planId, type, data);
    this.deliver(() => {
      for (const listener of this.listeners) listener(event as StreamEvent);
    });
    return event;
  }

  subscribe(listener: StreamCallback): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An emit function for one plan that also hands each event to a run's own callback. */
  emitterFor(planId: string, callback?: StreamCallback): Emit {
    return async (type, data) => {
      const event = await this.log.appendNext(planId, type, data);
      this.deliver(() => {
        for (const listener of this.listeners) listener(event as StreamEvent);
        callback?.(event as StreamEvent);
      });
      return event;
    };
  }

  /**
   * Runs `fn` (typically a transaction); the events it publishes reach subscribers only once it has
   * settled, so nobody sees an event whose writes could still roll back. If it throws they are
   * never delivered: its writes were undone. Nested calls join the outermost.
   */
  async deferDelivery<T>(fn: () => Promise<T>): Promise<T> {
    if (this.pending.getStore()?.open) return fn();
    const pending = { deliveries: [] as (() => void)[], open: true };
    try {
      const result = await this.pending.run(pending, fn);
      for (const delivery of pending.deliveries) delivery();
      return result;
    } finally {
      // A task it started that publishes later is no longer part of it.
      pending.open = false;
    }
  }

  private deliver(delivery: () => void): void {
    const pending = this.pending.getStore();
    if (pending?.open) pending.deliveries.push(delivery);
    else delivery();
  }
}
