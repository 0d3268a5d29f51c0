import { ValidationError } from '../../shared/errors';
import type { EventData, StreamCallback, StreamEvent, StreamEventOf, StreamEventType } from '../../shared/events';

/** Where stream events are kept, in per-plan seq order. */
export interface EventLog {
  append(event: StreamEvent): void;
  /** Gives the event the plan's next seq and stores it, atomically (several processes may write). */
  appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): StreamEventOf<T>;
  list(planId: string, afterSeq?: number, limit?: number): StreamEvent[];
  lastSeq(planId: string): number;
  /**
   * Optional, for logs that other processes also write (SQLite): a number that changes whenever
   * another connection commits, and every plan's last seq. A host polls these to notice events it
   * did not publish itself.
   */
  externalVersion?(): number;
  lastSeqs?(): Map<string, number>;
}


/** Emits one event of a plan; the data must fit its type's schema (shared/events.ts). */
export type Emit = <T extends StreamEventType>(type: T, data: EventData<T>) => StreamEventOf<T>;

/** Gives every event its per-plan seq, keeps it in the log, and fans it out to subscribers. */
export class EventPublisher {
  private readonly listeners = new Set<StreamCallback>();
  /** While deferDelivery runs: the deliveries waiting for its writes to commit. */
  private pending: (() => void)[] | null = null;

  constructor(readonly log: EventLog) {
    if (!log) throw new ValidationError('log', 'is required');
  }

  publish<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): StreamEventOf<T> {
    const event = this.log.appendNext(planId, type, data);
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
    return (type, data) => {
      const event = this.log.appendNext(planId, type, data);
      this.deliver(() => {
        for (const listener of this.listeners) listener(event as StreamEvent);
        callback?.(event as StreamEvent);
      });
      return event;
    };
  }

  /**
   * Runs `fn` (typically a transaction); the events it publishes reach subscribers only once it has
   * returned, so nobody sees an event whose writes could still roll back. If it throws they are
   * never delivered: its writes were undone. Nested calls join the outermost.
   */
  deferDelivery<T>(fn: () => T): T {
    if (this.pending) return fn();
    const pending: (() => void)[] = [];
    this.pending = pending;
    let result: T;
    try {
      result = fn();
    } finally {
      this.pending = null;
    }
    for (const delivery of pending) delivery();
    return result;
  }

  private deliver(delivery: () => void): void {
    if (this.pending) this.pending.push(delivery);
    else delivery();
  }
}
