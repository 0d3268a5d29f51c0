import type { IpcRenderer } from 'electron';
import { type Bridge, bridgeFailure, CHANNELS, failureOf, type Envelope, type Subscription } from '../shared/contract';
import { parseStreamEvent, type StreamEvent } from '../shared/events';
import { SHELL_CHANNELS, STREAM_CHANNELS } from '../shared/streams';

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

/**
 * One call over IPC. A failure rejects with a plain BridgeFailure, as the WebSocket bridge's do:
 * contextBridge would keep only the message of an Error. Electron rejects `invoke` itself with an
 * Error ("Error invoking remote method …") when the handler threw or a value could not be cloned.
 */
async function invoke(ipc: Pick<IpcRenderer, 'invoke'>, channel: string, request: unknown): Promise<unknown> {
  let envelope: unknown;
  try {
    envelope = await ipc.invoke(channel, request);
  } catch (error) {
    const message = (error as { message?: unknown } | null)?.message;
    throw bridgeFailure({ code: 'internal', message: typeof message === 'string' ? message : `the host failed to answer ${channel}` });
  }
  if (!isEnvelope(envelope)) throw bridgeFailure({ code: 'bad_response', message: `the host's answer to ${channel} was malformed` });
  if (!envelope.ok) throw bridgeFailure(failureOf(envelope.error) ?? { code: 'bad_response', message: `the host's refusal of ${channel} was malformed` });
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
      // Checked against its type's schema, as the WebSocket bridge checks each event.
      const event = parseStreamEvent(message.event);
      if (!event) {
        warn('[agents] dropped a malformed event');
        return;
      }
      try {
        listener(event);
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
    invoke(ipc, STREAM_CHANNELS.subscribe, { id, subscription }).catch((error: unknown) => {
      listeners.delete(id);
      warn(`[agents] subscription refused: ${failureOf(error)?.message ?? String(error)}`);
    });
    return () => {
      if (!listeners.delete(id)) return;
      invoke(ipc, STREAM_CHANNELS.unsubscribe, { id }).catch(() => undefined);
    };
  };

  // The page learns a short string (a plan's id, a key) and nothing of the IPC event; anything else is dropped.
  const fromShell = (channel: string, what: string, maxLength: number) => (listener: (value: string) => void): (() => void) => {
    let on = true;
    ipc.on(channel, (_event, value: unknown) => {
      if (!on) return;
      if (typeof value === 'string' && value.length > 0 && value.length <= maxLength) listener(value);
      else warn(`[agents] dropped a malformed ${what}`);
    });
    return () => {
      on = false;
    };
  };
  const onOpenPlan = fromShell(SHELL_CHANNELS.openPlan, 'request to open a plan', 64);
  const onMenuKey = fromShell(SHELL_CHANNELS.key, 'key from the menu', 16);

  return { ...calls, subscribe, onOpenPlan, onMenuKey } as unknown as Bridge;
}
