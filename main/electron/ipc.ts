import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { z } from 'zod';
import { CHANNELS, type BridgeErrorPayload, type Envelope, SubscriptionSchema } from '../../shared/contract';
import { ValidationError } from '../../shared/errors';
import type { StreamEvent } from '../../shared/events';
import type { EventHub, HubSubscription } from '../host/event-hub';
import { toBridgeError } from '../host/errors';
import type { HostLog, Router } from '../host/router';
import { isSameOrigin } from './app-origin';

/** IPC channels beyond the contract's own: the event stream. The preload uses the same three names. */
export const IPC_SUBSCRIBE = 'agents:subscribe';
export const IPC_UNSUBSCRIBE = 'agents:unsubscribe';
export const IPC_EVENT = 'agents:event';

export const SubscribeRequestSchema = z.object({ id: z.number().int().nonnegative(), subscription: SubscriptionSchema }).strict();
export const UnsubscribeRequestSchema = z.object({ id: z.number().int().nonnegative() }).strict();

/** What the IPC carries with each event. */
export interface IpcEventMessage {
  subscriptionId: number;
  event: StreamEvent;
}

const FORBIDDEN: BridgeErrorPayload = { code: 'forbidden', message: 'this sender may not call the host' };
const MAX_SUBSCRIPTIONS = 256;

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
  // Subscriptions per WebContents, dropped with it.
  const byContents = new Map<number, Map<number, HubSubscription>>();
  const watched = new Set<number>();
  const fail = (error: BridgeErrorPayload): Envelope<never> => ({ ok: false, error });
  const dropAll = (contentsId: number) => {
    for (const subscription of byContents.get(contentsId)?.values() ?? []) subscription.dispose();
    byContents.delete(contentsId);
  };

  for (const channel of CHANNELS) {
    ipcMain.handle(channel, (event, request: unknown) => (isTrusted(event) ? router.handle(channel, request) : fail(FORBIDDEN)));
  }

  ipcMain.handle(IPC_SUBSCRIBE, (event, request: unknown): Envelope<unknown> => {
    if (!isTrusted(event)) return fail(FORBIDDEN);
    const parsed = SubscribeRequestSchema.safeParse(request);
    if (!parsed.success) {
      const v = ValidationError.fromZod(parsed.error);
      return fail({ code: 'invalid_request', message: v.message, field: v.field });
    }
    const { id, subscription } = parsed.data;
    const sender = event.sender;
    let mine = byContents.get(sender.id);
    if (mine?.has(id)) return fail({ code: 'duplicate_subscription', message: `subscription ${id} already exists` });
    if ((mine?.size ?? 0) >= MAX_SUBSCRIPTIONS) return fail({ code: 'too_many_subscriptions', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions per window` });
    try {
      const handle = hub.subscribe(subscription, {
        send: (streamEvent) => {
          if (!sender.isDestroyed()) sender.send(IPC_EVENT, { subscriptionId: id, event: streamEvent } satisfies IpcEventMessage);
        },
        // IPC has no backlog we can see; Chromium queues it.
        congested: () => false,
        whenDrained: (callback) => {
          const timer = setTimeout(callback, 0);
          return () => clearTimeout(timer);
        },
      });
      if (!mine) {
        mine = new Map();
        byContents.set(sender.id, mine);
      }
      if (!watched.has(sender.id)) {
        watched.add(sender.id);
        const contentsId = sender.id;
        watchDestroyed(sender, () => dropAll(contentsId), () => watched.delete(contentsId));
      }
      mine.set(id, handle);
    } catch (error) {
      return fail(toBridgeError(error, log));
    }
    return { ok: true, data: { subscriptionId: id } };
  });

  ipcMain.handle(IPC_UNSUBSCRIBE, (event, request: unknown): Envelope<unknown> => {
    if (!isTrusted(event)) return fail(FORBIDDEN);
    const parsed = UnsubscribeRequestSchema.safeParse(request);
    if (!parsed.success) {
      const v = ValidationError.fromZod(parsed.error);
      return fail({ code: 'invalid_request', message: v.message, field: v.field });
    }
    const mine = byContents.get(event.sender.id);
    const handle = mine?.get(parsed.data.id);
    if (!mine || !handle) return fail({ code: 'unknown_subscription', message: `no subscription with id ${parsed.data.id}` });
    handle.dispose();
    mine.delete(parsed.data.id);
    return { ok: true, data: {} };
  });

  return {
    dispose() {
      for (const channel of [...CHANNELS, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE]) ipcMain.removeHandler(channel);
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
