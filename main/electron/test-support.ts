import type { IpcMainInvokeEvent } from 'electron';
import { vi } from 'vitest';

type Handler = (event: IpcMainInvokeEvent, request: unknown) => unknown;

/** An ipcMain that records its handlers, so a test can call them as the renderer would. */
export function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: vi.fn((channel: string, handler: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, handler);
    }),
    removeHandler: vi.fn((channel: string) => void handlers.delete(channel)),
    invoke(channel: string, event: IpcMainInvokeEvent, request: unknown): Promise<unknown> {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`no handler for ${channel}`);
      return Promise.resolve(handler(event, request));
    },
  };
}

/** A WebContents with just what the IPC binding touches. */
export function fakeWebContents(id: number) {
  const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  const contents = {
    id,
    destroyed: false,
    sent: [] as [string, unknown][],
    isDestroyed: () => contents.destroyed,
    send: vi.fn((channel: string, message: unknown) => void contents.sent.push([channel, message])),
    on: vi.fn((name: string, listener: (...args: unknown[]) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return contents;
    }),
    once: vi.fn((name: string, listener: (...args: unknown[]) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return contents;
    }),
    emit(name: string, ...args: unknown[]) {
      for (const listener of listeners.get(name) ?? []) listener(...args);
    },
  };
  return contents;
}

/** An invoke event from `contents`, from a frame showing `url` (top frame unless `parent` is given). */
export function invokeEvent(contents: ReturnType<typeof fakeWebContents>, url: string | null, parent: unknown = null): IpcMainInvokeEvent {
  return { sender: contents, senderFrame: url === null ? null : { url, parent } } as unknown as IpcMainInvokeEvent;
}
