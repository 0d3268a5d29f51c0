import type { WebSocket } from 'ws';
import type { BridgeErrorPayload, Envelope } from '../../shared/contract';
import type { StreamEvent } from '../../shared/events';
import { ClientMessageSchema, MAX_EVENTS_PER_MESSAGE, MAX_MESSAGE_BYTES, type ServerMessage } from '../../shared/ws-protocol';
import type { EventHub, EventSink } from '../host/event-hub';
import { SubscriptionTable } from '../host/subscriptions';
import { toBridgeError } from '../host/errors';
import type { HostLog, Router } from '../host/router';
import { ValidationError } from '../../shared/errors';

export interface ConnectionOptions {
  router: Router;
  hub: EventHub;
  log: HostLog;
  /** Events wait in the database, not in memory, while a socket has more than this unsent. */
  congestionBytes?: number;
  /** A client that reads nothing while this much is unsent is cut off. */
  maxBufferedBytes?: number;
  maxSubscriptions?: number;
  drainPollMs?: number;
  /** While events keep coming, at most one message of them per subscription this often (ms). */
  eventBatchMs?: number;
}

type Id = number | null;

/** The id of a message we could not accept, when it carries a usable one, so the client can match the error. */
function idOf(value: unknown): Id {
  if (value === null || typeof value !== 'object' || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

export function byteLength(data: Buffer | ArrayBuffer | Buffer[]): number {
  return Array.isArray(data) ? data.reduce((sum, part) => sum + part.length, 0) : data.byteLength;
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** Carries the contract over one WebSocket: calls with replies, subscriptions with events. */
export class WsConnection {
  private readonly subscriptions: SubscriptionTable;
  /** Events waiting for the end of this turn, per subscription, each in the order they came. */
  private queued = new Map<number, StreamEvent[]>();
  private queuedCount = 0;
  /** Cancels the scheduled flush of `queued`, if one is scheduled. */
  private cancelFlush: (() => void) | null = null;
  private lastFlush = -Infinity;
  private readonly eventBatchMs: number;
  private readonly congestionBytes: number;
  private readonly maxBufferedBytes: number;
  private disposed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.subscriptions = new SubscriptionTable(options.hub, options.log, options.maxSubscriptions);
    this.congestionBytes = options.congestionBytes ?? 1_048_576;
    this.eventBatchMs = options.eventBatchMs ?? 4;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 64 * 1_048_576;
    // Each message in a turn of its own, in order: ws hands over every message of a network read at
    // once, and a call's reply waits for its microtask; without this, the quick answers to a burst of
    // calls (a console opening a plan) would all wait behind the slowest call in it.
    ws.on('message', (data, isBinary) => setImmediate(() => this.onMessage(data, isBinary)));
    ws.on('close', () => this.dispose());
    // A protocol error (bad frame, payload over the hard limit) closes the socket; ws reports it here.
    ws.on('error', (error) => options.log('websocket error', error.message));
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cancelFlush?.();
    this.cancelFlush = null;
    this.queued.clear();
    this.subscriptions.dispose();
  }

  private onMessage(raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    try {
      // Refused before anything is copied or decoded: a hostile client's frames cost no more than ws's own buffer.
      const size = byteLength(raw);
      if (size > MAX_MESSAGE_BYTES) {
        return this.fail(null, { code: 'message_too_large', message: `a message may be at most ${MAX_MESSAGE_BYTES} bytes; this one has ${size}` });
      }
      if (isBinary) return this.fail(null, { code: 'invalid_message', message: 'send JSON in text frames' });
      const data = toBuffer(raw);
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString('utf8'));
      } catch {
        return this.fail(null, { code: 'invalid_json', message: 'the message is not valid JSON' });
      }
      const message = ClientMessageSchema.safeParse(parsed);
      if (!message.success) {
        const v = ValidationError.fromZod(message.error);
        return this.fail(idOf(parsed), { code: 'invalid_message', message: v.message, field: v.field });
      }
      const m = message.data;
      if (m.type === 'call') {
        this.options.router.handle(m.channel, m.request).then(
          (envelope) => this.reply(m.id, envelope),
          (error: unknown) => this.fail(m.id, toBridgeError(error, this.options.log)),
        );
      } else if (m.type === 'subscribe') {
        this.subscriptions.subscribe(m.id, m.subscription, this.sinkFor(m.id)).then(
          (envelope) => this.reply(m.id, envelope),
          (error: unknown) => this.fail(m.id, toBridgeError(error, this.options.log)),
        );
      } else {
        this.reply(m.id, this.subscriptions.unsubscribe(m.id));
      }
    } catch (error) {
      this.fail(null, toBridgeError(error, this.options.log));
    }
  }

  private sinkFor(subscriptionId: number): EventSink {
    return {
      send: (event: StreamEvent) => this.queueEvent(subscriptionId, event),
      congested: () => this.ws.bufferedAmount > this.congestionBytes,
      whenDrained: (callback) => {
        // ws has no drain event of its own; its buffer is cheap to look at.
        const timer = setInterval(() => {
          if (this.disposed) return clearInterval(timer);
          if (this.ws.bufferedAmount <= this.congestionBytes / 2) {
            clearInterval(timer);
            callback();
          }
        }, this.options.drainPollMs ?? 20);
        return () => clearInterval(timer);
      },
    };
  }

  /**
   * Holds an event briefly so that events leave in a few messages instead of one message each: at
   * thousands of events a second, a message per event costs the host a socket write each and the
   * page a message dispatch, a JSON parse and a validation each. After a quiet spell an event goes
   * at the end of this turn (with whatever else the turn produced); while events keep coming, at
   * most one message per subscription leaves every `eventBatchMs`, well inside a display frame.
   */
  private queueEvent(subscriptionId: number, event: StreamEvent): void {
    const events = this.queued.get(subscriptionId);
    if (events) events.push(event);
    else this.queued.set(subscriptionId, [event]);
    this.queuedCount += 1;
    if (this.queuedCount >= MAX_EVENTS_PER_MESSAGE) return this.flushEvents();
    if (this.cancelFlush) return;
    const wait = this.lastFlush + this.eventBatchMs - performance.now();
    if (wait <= 0) {
      const immediate = setImmediate(() => this.flushEvents());
      this.cancelFlush = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(() => this.flushEvents(), wait);
      this.cancelFlush = () => clearTimeout(timer);
    }
  }

  private flushEvents(): void {
    this.cancelFlush?.();
    this.cancelFlush = null;
    this.lastFlush = performance.now();
    const queued = this.queued;
    this.queued = new Map();
    this.queuedCount = 0;
    for (const [subscriptionId, events] of queued) {
      this.send(events.length === 1 ? { type: 'event', subscriptionId, event: events[0] } : { type: 'events', subscriptionId, events });
    }
  }

  private reply(id: Id, envelope: Envelope<unknown>): void {
    // Events from before the reply go first: a client applies a reply's snapshot over older events.
    if (this.queuedCount > 0) this.flushEvents();
    this.send(envelope.ok ? { type: 'reply', id, ok: true, data: envelope.data } : { type: 'reply', id, ok: false, error: envelope.error });
  }

  private fail(id: Id, error: BridgeErrorPayload): void {
    this.reply(id, { ok: false, error });
  }

  private send(message: ServerMessage): void {
    if (this.disposed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.maxBufferedBytes) {
      // The client reads nothing; holding more for it would only grow our memory.
      this.ws.close(1008, 'client is not reading its messages');
      this.dispose();
      return;
    }
    this.ws.send(JSON.stringify(message));
  }
}
