import type { WebSocket } from 'ws';
import type { BridgeErrorPayload, Envelope } from '../../shared/contract';
import type { StreamEvent } from '../../shared/events';
import { ClientMessageSchema, MAX_MESSAGE_BYTES, type ServerMessage } from '../../shared/ws-protocol';
import type { EventHub, EventSink, HubSubscription } from '../host/event-hub';
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
}

type Id = number | null;

/** The id of a message we could not accept, when it carries a usable one, so the client can match the error. */
function idOf(value: unknown): Id {
  if (value === null || typeof value !== 'object' || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** Carries the contract over one WebSocket: calls with replies, subscriptions with events. */
export class WsConnection {
  private readonly subscriptions = new Map<number, HubSubscription>();
  private readonly congestionBytes: number;
  private readonly maxBufferedBytes: number;
  private disposed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.congestionBytes = options.congestionBytes ?? 1_048_576;
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
    for (const subscription of this.subscriptions.values()) subscription.dispose();
    this.subscriptions.clear();
  }

  private onMessage(raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    try {
      const data = toBuffer(raw);
      if (data.length > MAX_MESSAGE_BYTES) {
        return this.fail(null, { code: 'message_too_large', message: `a message may be at most ${MAX_MESSAGE_BYTES} bytes; this one has ${data.length}` });
      }
      if (isBinary) return this.fail(null, { code: 'invalid_message', message: 'send JSON in text frames' });
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
        this.subscribe(m.id, m.subscription);
      } else {
        const subscription = this.subscriptions.get(m.id);
        if (!subscription) return this.fail(m.id, { code: 'unknown_subscription', message: `no subscription with id ${m.id}` });
        subscription.dispose();
        this.subscriptions.delete(m.id);
        this.reply(m.id, { ok: true, data: {} });
      }
    } catch (error) {
      this.fail(null, toBridgeError(error, this.options.log));
    }
  }

  private subscribe(id: number, subscription: { planId: string | null; afterSeq: number }): void {
    if (this.subscriptions.has(id)) return this.fail(id, { code: 'duplicate_subscription', message: `subscription ${id} already exists` });
    const max = this.options.maxSubscriptions ?? 256;
    if (this.subscriptions.size >= max) return this.fail(id, { code: 'too_many_subscriptions', message: `at most ${max} subscriptions per connection` });
    try {
      this.subscriptions.set(id, this.options.hub.subscribe(subscription, this.sinkFor(id)));
    } catch (error) {
      return this.fail(id, toBridgeError(error, this.options.log));
    }
    this.reply(id, { ok: true, data: { subscriptionId: id } });
  }

  private sinkFor(subscriptionId: number): EventSink {
    return {
      send: (event: StreamEvent) => this.send({ type: 'event', subscriptionId, event }),
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

  private reply(id: Id, envelope: Envelope<unknown>): void {
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
