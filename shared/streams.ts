import { z } from 'zod';
import { SubscriptionSchema } from './contract';
import type { StreamEvent } from './events';

/**
 * The event stream's side of the contract, declared once for both transports. Over Electron's IPC
 * these are the channel names (the preload sends subscribe/unsubscribe and listens on the event
 * channel); over the WebSocket the same requests travel as `subscribe`/`unsubscribe` messages
 * (shared/ws-protocol.ts). The host serves both from one subscription table (main/host/subscriptions.ts).
 */
export const STREAM_CHANNELS = {
  subscribe: 'agents:subscribe',
  unsubscribe: 'agents:unsubscribe',
  event: 'agents:event',
} as const;

/**
 * What the desktop shell asks of its page, main to renderer only: open this plan (a notification
 * was clicked), press this key (a menu item was chosen). The browser console opens the plan itself, so the WebSocket has no such message.
 */
export const SHELL_CHANNELS = {
  openPlan: 'agents:open-plan',
  /** A menu item chosen: the page acts as if its key were pressed. */
  key: 'agents:key',
} as const;

export const SubscribeRequestSchema = z.object({ id: z.number().int().nonnegative(), subscription: SubscriptionSchema }).strict();
export const UnsubscribeRequestSchema = z.object({ id: z.number().int().nonnegative() }).strict();

/** Subscriptions one client (a window, a socket) may hold at once. */
export const MAX_SUBSCRIPTIONS = 256;

/** What the IPC event channel carries with each event. */
export interface IpcEventMessage {
  subscriptionId: number;
  event: StreamEvent;
}
