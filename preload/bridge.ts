import type { IpcRenderer } from 'electron';
import { type Bridge, type BridgeErrorPayload, CHANNELS, type Envelope, type Subscription } from '../shared/contract';
import type { StreamEvent } from '../shared/events';
import { STREAM_CHANNELS } from '../shared/streams';


/**
 * What a failed call rejects with. contextBridge keeps only the message of an Error it carries, so
 * the rejection is a plain object shaped like BridgeError: `error.payload.code` works on both
 * transports, `instanceof BridgeError` only on the WebSocket one.
 */
export interface BridgeFailure {
  name: 'BridgeError';
  message: string;
  payload: BridgeErrorPayload;
}

function failure(payload: BridgeErrorPayload): BridgeFailure {
  return { name: 'BridgeError', message: payload.message, payload };
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

async function invoke(ipc: Pick<IpcRenderer, 'invoke'>, channel: string, request: unknown): Promise<unknown> {
  const envelope: unknown = await ipc.invoke(channel, request);
  if (!isEnvelope(envelope)) throw failure({ code: 'bad_response', message: `the host's answer to ${channel} was malformed` });
  if (!envelope.ok) throw failure(envelope.error);
  return envelope.data;
}

/**
 * The renderer's Bridge over IPC: exactly one function per contract channel, plus `subscribe`.
 * There is deliberately no way to name an arbitrary channel.
 */
export function createIpcBridge(ipc: Pick<IpcRenderer, 'invoke' | 'on'>, warn: (message: string) => void = console.warn): Bridge {
  const listeners = new Map<number, (event: StreamEvent) => void>();
  let nextId = 1;
  let listening = false;

  const listen = () => {
    if (listening) return;
    listening = true;
    // The IPC event object stays here: handing it to the page would give it ipcRenderer's sender.
    ipc.on(STREAM_CHANNELS.event, (_event, message: { subscriptionId?: unknown; event?: unknown }) => {
      const listener = typeof message?.subscriptionId === 'number' ? listeners.get(message.subscriptionId) : undefined;
      if (!listener) return;
      try {
        listener(message.event as StreamEvent);
      } catch (error) {
        warn(`[agents] an event listener threw: ${String(error)}`);
      }
    });
  };

  const calls = Object.fromEntries(CHANNELS.map((channel) => [channel, (request: unknown) => invoke(ipc, channel, request)]));

  const subscribe = (subscription: Subscription, listener: (event: StreamEvent) => void): (() => void) => {
    listen();
    const id = nextId++;
    listeners.set(id, listener);
    invoke(ipc, STREAM_CHANNELS.subscribe, { id, subscription }).catch((error: BridgeFailure) => {
      listeners.delete(id);
      warn(`[agents] subscription refused: ${error.message}`);
    });
    return () => {
      if (!listeners.delete(id)) return;
      invoke(ipc, STREAM_CHANNELS.unsubscribe, { id }).catch(() => undefined);
    };
  };

  return { ...calls, subscribe } as unknown as Bridge;
}
