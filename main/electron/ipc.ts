import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { CHANNELS, type BridgeErrorPayload, type Envelope } from '../../shared/contract';
import type { ZodError } from 'zod';
import { type IpcEventMessage, STREAM_CHANNELS, SubscribeRequestSchema, UnsubscribeRequestSchema } from '../../shared/streams';
import { invalidRequest } from '../host/errors';
import type { EventHub } from '../host/event-hub';
import type { HostLog, Router } from '../host/router';
import { SubscriptionTable } from '../host/subscriptions';
import { isSameOrigin } from './app-origin';

const FORBIDDEN: BridgeErrorPayload = { code: 'forbidden', message: 'this sender may not call the host' };

export type SenderCheck = (event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>) => boolean;

/**
 * A call is ours when it comes from our window's top frame showing a page of the app's origin: not
 * another window, not an iframe, not a page the window was somehow navigated to.
 */
export function trustedSender(options: { appOrigin: string; webContentsId: () => number | null }): SenderCheck {
  return (event) => {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null) return false;
    const id = options.webContentsId();
    return id !== null && event.sender.id === id && isSameOrigin(frame.url, options.appOrigin);
  };
}

export interface IpcBinding {
  dispose(): void;
}

/** Binds the router and the event hub to ipcMain: one handler per contract channel, each checking its sender. */
export function registerIpc(options: {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  router: Router;
  hub: EventHub;
  isTrusted: SenderCheck;
  log: HostLog;
}): IpcBinding {
  const { ipcMain, router, hub, isTrusted, log } = options;
  // One subscription table per WebContents, dropped with it.
  const byContents = new Map<number, SubscriptionTable>();
  const watched = new Set<number>();
  const fail = (error: BridgeErrorPayload): Envelope<never> => ({ ok: false, error });
  const invalid = (error: ZodError): Envelope<never> => fail(invalidRequest(error));
  const dropAll = (contentsId: number) => {
    byContents.get(contentsId)?.dispose();
    byContents.delete(contentsId);
  };

  for (const channel of CHANNELS) {
    ipcMain.handle(channel, (event, request: unknown) => (isTrusted(event) ? router.handle(channel, request) : fail(FORBIDDEN)));
  }

  ipcMain.handle(STREAM_CHANNELS.subscribe, async (event, request: unknown): Promise<Envelope<unknown>> => {
    if (!isTrusted(event)) return fail(FORBIDDEN);
    const parsed = SubscribeRequestSchema.safeParse(request);
    if (!parsed.success) return invalid(parsed.error);
    const { id, subscription } = parsed.data;
    const sender = event.sender;
    let table = byContents.get(sender.id);
    if (!table) {
      table = new SubscriptionTable(hub, log);
      byContents.set(sender.id, table);
    }
    if (!watched.has(sender.id)) {
      watched.add(sender.id);
      const contentsId = sender.id;
      watchDestroyed(sender, () => dropAll(contentsId), () => watched.delete(contentsId));
    }
    return table.subscribe(id, subscription, {
      send: (streamEvent) => {
        if (!sender.isDestroyed()) sender.send(STREAM_CHANNELS.event, { subscriptionId: id, event: streamEvent } satisfies IpcEventMessage);
      },
      // IPC has no backlog we can see; Chromium queues it.
      congested: () => false,
      whenDrained: (callback) => {
        const timer = setTimeout(callback, 0);
        return () => clearTimeout(timer);
      },
    });
  });

  ipcMain.handle(STREAM_CHANNELS.unsubscribe, (event, request: unknown): Envelope<unknown> => {
    if (!isTrusted(event)) return fail(FORBIDDEN);
    const parsed = UnsubscribeRequestSchema.safeParse(request);
    if (!parsed.success) return invalid(parsed.error);
    const table = byContents.get(event.sender.id);
    return table ? table.unsubscribe(parsed.data.id) : fail({ code: 'unknown_subscription', message: `no subscription with id ${parsed.data.id}` });
  });

  return {
    dispose() {
      for (const channel of [...CHANNELS, STREAM_CHANNELS.subscribe, STREAM_CHANNELS.unsubscribe]) ipcMain.removeHandler(channel);
      for (const id of [...byContents.keys()]) dropAll(id);
    },
  };
}

function watchDestroyed(contents: WebContents, callback: () => void, forget: () => void): void {
  // A reload drops the page's listeners too, so its subscriptions go with it.
  contents.once('destroyed', () => {
    callback();
    forget();
  });
  contents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) callback();
  });
}
