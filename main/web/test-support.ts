import { WebSocket } from 'ws';
import type { ServerMessage } from '../../shared/ws-protocol';

/** A WebSocket client that queues what it receives, so a test can await the next message. */
export interface TestClient {
  ws: WebSocket;
  next(timeoutMs?: number): Promise<ServerMessage>;
  /** Sends a call and waits for the reply with its id (events in between are kept for next()). */
  call(channel: string, request: unknown, id?: number): Promise<ServerMessage>;
  send(data: string | Buffer, binary?: boolean): void;
  close(): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Every message as it came over the wire (next() reads a batch of events one event at a time). */
  received: ServerMessage[];
}

let nextCallId = 1_000_000;

export function connect(url: string, origin: string | undefined): Promise<TestClient> {
  const ws = new WebSocket(url, origin === undefined ? {} : { origin });
  const queue: ServerMessage[] = [];
  const waiting: ((m: ServerMessage) => void)[] = [];
  const received: ServerMessage[] = [];
  const receive = (message: ServerMessage) => {
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  };
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as ServerMessage;
    received.push(message);
    // A batch reads as its events one by one, so tests can follow a stream event by event.
    if (message.type === 'events') for (const event of message.events) receive({ type: 'event', subscriptionId: message.subscriptionId, event });
    else receive(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const next = (timeoutMs = 5_000) =>
    new Promise<ServerMessage>((resolve, reject) => {
      const queued = queue.shift();
      if (queued) return resolve(queued);
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(deliver), 1);
        reject(new Error('no message within the timeout'));
      }, timeoutMs);
      const deliver = (m: ServerMessage) => {
        clearTimeout(timer);
        resolve(m);
      };
      waiting.push(deliver);
    });
  const client: TestClient = {
    ws,
    next,
    closed,
    received,
    send: (data, binary = false) => ws.send(data, { binary }),
    async call(channel, request, id = nextCallId++) {
      ws.send(JSON.stringify({ type: 'call', id, channel, request }));
      const held: ServerMessage[] = [];
      for (;;) {
        const message = await next();
        if (message.type === 'reply' && message.id === id) {
          queue.unshift(...held);
          return message;
        }
        held.push(message);
      }
    },
    async close() {
      if (ws.readyState === ws.CLOSED) return;
      ws.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused with ${res.statusCode}`), { statusCode: res.statusCode })));
    ws.once('error', reject);
  });
}

/** The status an upgrade was refused with, or 101 when it was accepted. */
export async function upgradeStatus(url: string, origin: string | undefined): Promise<number> {
  try {
    const client = await connect(url, origin);
    await client.close();
    return 101;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode ?? -1;
  }
}
