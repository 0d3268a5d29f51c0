import type { ClientMessage } from '../../../shared/ws-protocol';
import type { SocketFactory, SocketHandlers, Timers } from '../bridge/socket';

/** One fake connection: records what the bridge sent and lets a test play the server. */
export class FakeConnection {
  readonly sent: ClientMessage[] = [];
  closed = false;

  constructor(
    readonly url: string,
    private readonly handlers: SocketHandlers,
  ) {}

  open(): void {
    this.handlers.onOpen();
  }

  /** The server closes the connection (or the network drops it). */
  drop(code = 1006): void {
    this.handlers.onClose(code, '');
  }

  receive(message: unknown): void {
    this.handlers.onMessage(typeof message === 'string' ? message : JSON.stringify(message));
  }

  lastSent(): ClientMessage | undefined {
    return this.sent.at(-1);
  }
}

export function fakeSocketFactory(): { factory: SocketFactory; connections: FakeConnection[] } {
  const connections: FakeConnection[] = [];
  const factory: SocketFactory = (url, handlers) => {
    const connection = new FakeConnection(url, handlers);
    connections.push(connection);
    return {
      send: (data) => connection.sent.push(JSON.parse(data) as ClientMessage),
      close: () => {
        connection.closed = true;
      },
    };
  };
  return { factory, connections };
}

/** Timers a test advances by hand. */
export class ManualTimers implements Timers {
  private nextHandle = 1;
  private readonly due = new Map<number, { at: number; callback: () => void }>();
  now = 0;

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.due.set(handle, { at: this.now + ms, callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }

  get pending(): number {
    return this.due.size;
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [handle, timer] of [...this.due].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at <= this.now && this.due.delete(handle)) timer.callback();
    }
  }
}
