import { bridgeFailure, CHANNELS, type Bridge, type BridgeErrorPayload, type BridgeFailure, type Channel, type Subscription } from '../../../shared/contract';
import { parseStreamEvent, type StreamEvent } from '../../../shared/events';
import { MAX_MESSAGE_BYTES, ServerMessageSchema, ServerMessageSchemas, type ClientMessage } from '../../../shared/ws-protocol';
import { defaultBackoff, type ConnectionSource, type ConnectionStatus } from './connection';
import { browserSocket, browserTimers, type SocketFactory, type SocketLike, type Timers } from './socket';

export interface WsBridgeOptions {
  url: string;
  socket?: SocketFactory;
  timers?: Timers;
  now?: () => number;
  /** Milliseconds to wait before reconnect attempt `attempt` (0-based). */
  backoff?: (attempt: number) => number;
  /**
   * Asked when a connection closes without having opened: whether the server refuses this page's
   * token ('refused'), so the console can say so instead of reconnecting for ever.
   */
  checkAccess?: () => Promise<'refused' | 'ok' | 'unknown'>;
  /** Called for messages that fit no pending call or subscription, and for malformed ones. */
  onProtocolError?: (message: string) => void;
}

export interface WsBridge {
  bridge: Bridge;
  connection: ConnectionSource;
  dispose(): void;
}

interface PendingCall {
  channel: Channel;
  message: string;
  sent: boolean;
  resolve(value: unknown): void;
  reject(error: BridgeFailure): void;
}

interface ActiveSubscription {
  planId: string | null;
  types: Subscription['types'];
  afterSeq: number;
  /** The last seq delivered, so a reconnect resumes after it (per-plan subscriptions only). */
  lastSeq: number;
  listener(event: StreamEvent): void;
}

/**
 * The events of an `event` or `events` message, each checked against its own type's schema
 * (shared/events.ts): the one parse an event gets in the page. Null when the message is neither or
 * any event fails, so it is reported with the schema's message.
 */
function eventsIn(value: unknown): { subscriptionId: number; events: readonly StreamEvent[] } | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  const subscriptionId = m.subscriptionId;
  if (typeof subscriptionId !== 'number' || !Number.isSafeInteger(subscriptionId) || subscriptionId < 0) return null;
  const raw = m.type === 'event' ? [m.event] : m.type === 'events' && Array.isArray(m.events) && m.events.length >= 2 ? m.events : null;
  if (!raw) return null;
  const events: StreamEvent[] = [];
  for (const item of raw) {
    const event = parseStreamEvent(item);
    if (!event) return null;
    events.push(event);
  }
  return { subscriptionId, events };
}

/**
 * The largest message read from the host. Its answers can be big (the tree of a plan with 10,000
 * decisions is several MB); this only stops a runaway one.
 */
export const MAX_SERVER_MESSAGE_CHARS = 64 * MAX_MESSAGE_BYTES;

const DISCONNECTED: BridgeErrorPayload = {
  code: 'disconnected',
  message: 'The connection to the server was lost before it answered; the request may or may not have run.',
};

/**
 * The contract's `Bridge` over the WebSocket of `agents serve`. Calls queue while the socket is
 * down; subscriptions survive reconnects and resume after the last event seen, so none is lost.
 */
export function createWsBridge(options: WsBridgeOptions): WsBridge {
  const openSocket = options.socket ?? browserSocket;
  const timers = options.timers ?? browserTimers;
  const now = options.now ?? Date.now;
  const backoff = options.backoff ?? ((attempt: number) => defaultBackoff(attempt));
  const protocolError = options.onProtocolError ?? ((message: string) => console.warn(`[agents] ${message}`));

  let nextId = 1;
  let socket: SocketLike | null = null;
  let isOpen = false;
  let disposed = false;
  let attempt = 0;
  let reconnectTimer: unknown = null;
  let status: ConnectionStatus = { state: 'connecting', attempt: 0 };
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  const pending = new Map<number, PendingCall>();
  const subscriptions = new Map<number, ActiveSubscription>();

  const setStatus = (next: ConnectionStatus) => {
    status = next;
    for (const listener of statusListeners) listener(next);
  };

  const sendRaw = (raw: string): boolean => {
    if (!socket || !isOpen) return false;
    try {
      socket.send(raw);
      return true;
    } catch {
      return false;
    }
  };
  const send = (message: ClientMessage): boolean => sendRaw(JSON.stringify(message));

  const sendSubscribe = (id: number, sub: ActiveSubscription) => {
    const afterSeq = sub.planId === null ? sub.afterSeq : Math.max(sub.afterSeq, sub.lastSeq);
    send({ type: 'subscribe', id, subscription: { planId: sub.planId, afterSeq, ...(sub.types ? { types: sub.types } : {}) } });
  };

  const handleReply = (id: number | null, ok: boolean, data: unknown, error: BridgeErrorPayload | undefined) => {
    if (id === null) {
      protocolError(`server error: ${error?.message ?? 'unknown'}`);
      return;
    }
    const call = pending.get(id);
    if (!call) {
      if (subscriptions.has(id)) {
        if (!ok) protocolError(`subscription ${id} refused: ${error?.message ?? 'unknown'}`);
      } else if (!ok) {
        protocolError(`reply to unknown request ${id}: ${error?.message ?? 'unknown'}`);
      }
      return;
    }
    pending.delete(id);
    if (!ok) {
      call.reject(bridgeFailure(error ?? { code: 'internal', message: 'the server refused the request' }));
      return;
    }
    // The host checked the answer against the contract before it left (router.ts); parsed once, there.
    call.resolve(data);
  };

  const handleEvent = (subscriptionId: number, event: StreamEvent) => {
    const sub = subscriptions.get(subscriptionId);
    if (!sub) return;
    if (sub.planId !== null) {
      if (event.seq <= sub.lastSeq) return;
      sub.lastSeq = event.seq;
    }
    try {
      sub.listener(event);
    } catch (error) {
      protocolError(`an event listener threw: ${String(error)}`);
    }
  };

  const onMessage = (raw: string) => {
    if (raw.length > MAX_SERVER_MESSAGE_CHARS) {
      protocolError('dropped an oversized message');
      // A reply names its call first thing: fail that call rather than leave it waiting forever.
      const id = /^\{"type":"reply","id":(\d+)/.exec(raw.slice(0, 64))?.[1];
      const call = id === undefined ? undefined : pending.get(Number(id));
      if (call) {
        pending.delete(Number(id));
        call.reject(bridgeFailure({ code: 'message_too_large', message: `the answer to ${call.channel} was too large to read (${raw.length} characters)` }));
      }
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      protocolError('dropped a message that is not JSON');
      return;
    }
    // Each event against its own type's schema; anything else, and a message with an event that
    // fails, against the schema of the message's type, for the usual error.
    const checked = eventsIn(json);
    if (checked) {
      for (const event of checked.events) handleEvent(checked.subscriptionId, event);
      return;
    }
    const type = json !== null && typeof json === 'object' ? (json as { type?: unknown }).type : undefined;
    const schema = type === 'reply' || type === 'event' || type === 'events' ? ServerMessageSchemas[type] : ServerMessageSchema;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      protocolError(`dropped a malformed message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'event') handleEvent(message.subscriptionId, message.event);
    else if (message.type === 'events') for (const event of message.events) handleEvent(message.subscriptionId, event);
    else if (message.ok) handleReply(message.id, true, message.data, undefined);
    else handleReply(message.id, false, undefined, message.error);
  };

  const onOpen = () => {
    isOpen = true;
    attempt = 0;
    setStatus({ state: 'open' });
    for (const [id, sub] of subscriptions) sendSubscribe(id, sub);
    for (const call of pending.values()) {
      if (!call.sent) call.sent = sendRaw(call.message);
    }
  };

  const onClose = (opened: boolean) => {
    isOpen = false;
    socket = null;
    for (const [id, call] of pending) {
      if (call.sent) {
        pending.delete(id);
        call.reject(bridgeFailure(DISCONNECTED));
      }
    }
    if (disposed) return;
    const delay = backoff(attempt);
    attempt += 1;
    setStatus({ state: 'closed', attempt, retryAt: now() + delay });
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
    if (!opened && options.checkAccess) {
      void options.checkAccess().then(
        (access) => {
          if (access !== 'refused' || disposed || isOpen) return;
          if (reconnectTimer !== null) timers.clearTimeout(reconnectTimer);
          reconnectTimer = null;
          setStatus({ state: 'refused' });
        },
        () => undefined,
      );
    }
  };

  function connect() {
    if (disposed) return;
    setStatus({ state: 'connecting', attempt });
    let closed = false;
    let opened = false;
    const handlers = {
      onOpen: () => {
        if (closed) return;
        opened = true;
        onOpen();
      },
      onMessage: (data: string) => {
        if (!closed) onMessage(data);
      },
      onClose: () => {
        // A socket reports its close once; a late duplicate must not schedule a second reconnect.
        if (closed) return;
        closed = true;
        onClose(opened);
      },
    };
    try {
      socket = openSocket(options.url, handlers);
    } catch (error) {
      protocolError(`could not open the connection: ${String(error)}`);
      handlers.onClose();
    }
  }

  const call = (channel: Channel, request: unknown): Promise<unknown> => {
    if (disposed) return Promise.reject(bridgeFailure({ code: 'disposed', message: 'the console is shutting down' }));
    // Parsed once, by the host that receives it: a refused request comes back as invalid_request.
    const id = nextId++;
    const message = JSON.stringify({ type: 'call', id, channel, request } satisfies ClientMessage);
    return new Promise((resolve, reject) => {
      const entry: PendingCall = { channel, message, sent: false, resolve, reject };
      pending.set(id, entry);
      // If the socket is down the call stays queued and goes out on the next open.
      entry.sent = sendRaw(message);
    });
  };

  const subscribe: Bridge['subscribe'] = (subscription: Subscription, listener) => {
    const id = nextId++;
    const sub: ActiveSubscription = {
      planId: subscription.planId,
      types: subscription.types,
      afterSeq: subscription.afterSeq ?? 0,
      lastSeq: subscription.afterSeq ?? 0,
      listener,
    };
    subscriptions.set(id, sub);
    if (isOpen) sendSubscribe(id, sub);
    return () => {
      if (!subscriptions.delete(id)) return;
      send({ type: 'unsubscribe', id });
    };
  };

  const bridge = Object.fromEntries(CHANNELS.map((channel) => [channel, (request: unknown) => call(channel, request)])) as unknown as Bridge;
  bridge.subscribe = subscribe;

  connect();

  return {
    bridge,
    connection: {
      get: () => status,
      subscribe(listener) {
        statusListeners.add(listener);
        return () => statusListeners.delete(listener);
      },
    },
    dispose() {
      disposed = true;
      if (reconnectTimer !== null) timers.clearTimeout(reconnectTimer);
      for (const call of pending.values()) call.reject(bridgeFailure({ code: 'disposed', message: 'the console is shutting down' }));
      pending.clear();
      subscriptions.clear();
      socket?.close();
      socket = null;
      statusListeners.clear();
    },
  };
}
