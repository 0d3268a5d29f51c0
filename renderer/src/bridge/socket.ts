/** What the WebSocket bridge needs from a socket; a browser WebSocket in the app, a fake in tests. */
export interface SocketHandlers {
  onOpen(): void;
  onMessage(data: string): void;
  onClose(code: number, reason: string): void;
}

export interface SocketLike {
  send(data: string): void;
  close(): void;
}

export type SocketFactory = (url: string, handlers: SocketHandlers) => SocketLike;

export const browserSocket: SocketFactory = (url, handlers) => {
  const ws = new WebSocket(url);
  ws.onopen = () => handlers.onOpen();
  ws.onmessage = (event) => {
    if (typeof event.data === 'string') handlers.onMessage(event.data);
  };
  ws.onclose = (event) => handlers.onClose(event.code, event.reason);
  return {
    send: (data) => ws.send(data),
    close: () => ws.close(),
  };
};

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const browserTimers: Timers = {
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
};
