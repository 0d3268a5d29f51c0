import type { BrowserWindow, NotificationConstructorOptions } from 'electron';
import { type AttentionKind, attentionOf, attentionText } from '../../shared/attention';
import type { Plan } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import { statusLabel } from '../../shared/vocabulary';
import type { EventHub } from '../host/event-hub';
import { SHELL_CHANNELS } from '../../shared/streams';

/** The parts of Electron the notifications use; injected, so tests hand in the stand-in module's. */
export interface NotificationElectron {
  Notification: { new (options: NotificationConstructorOptions): { on(event: 'click', listener: () => void): unknown; show(): void }; isSupported(): boolean };
  app: { setBadgeCount(count: number): boolean };
}

/** The statuses in which a plan waits for its operator: the badge counts the plans in one. */
const NEEDS_OPERATOR = new Set(['Waiting for approval', 'Failed', 'Checks failed', 'Ready to apply']);

const TYPES = ['approval_requested', 'state_changed', 'checks_complete'] as const;

/**
 * The desktop app's notifications: a system notification when a plan starts to need its operator
 * while the window is not focused (a click brings the window back, on that plan), and the dock or taskbar badge
 * counting the plans that need the operator. Events of every process reach it through the hub, so a
 * run from the CLI is announced too. Off with `agents config set notifyDesktop off`, or by kind.
 */
export async function startDesktopNotifications(options: {
  electron: NotificationElectron;
  hub: Pick<EventHub, 'subscribe'>;
  plans: { get(planId: string): Promise<Plan>; list(): Promise<readonly Plan[]> };
  window(): (Pick<BrowserWindow, 'isFocused' | 'isMinimized' | 'restore' | 'show' | 'focus'> & { webContents: Pick<BrowserWindow['webContents'], 'send'> }) | null;
  /** Whether notifications of this kind are shown (notifyDesktop and the per-kind switches). */
  enabled(kind: AttentionKind): boolean;
  log(message: string, error?: unknown): void;
}): Promise<{ dispose(): void }> {
  const { electron } = options;
  const badge = async () => {
    const plans = await options.plans.list();
    electron.app.setBadgeCount(plans.filter((plan) => NEEDS_OPERATOR.has(statusLabel(plan))).length);
  };
  const announce = async (event: StreamEvent) => {
    const attention = attentionOf(event);
    if (event.type === 'state_changed' || attention) await badge();
    if (!attention || !electron.Notification.isSupported() || !options.enabled(attention.kind) || options.window()?.isFocused()) return;
    const plan = await options.plans.get(event.planId);
    const notification = new electron.Notification({ title: 'CleverAgents', body: attentionText(plan.name, attention) });
    notification.on('click', () => {
      const window = options.window();
      if (!window) return;
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      // The page opens the plan (preload/bridge.ts, onOpenPlan).
      window.webContents.send(SHELL_CHANNELS.openPlan, plan.id);
    });
    notification.show();
  };
  const subscription = await options.hub.subscribe(
    { planId: null, types: TYPES },
    {
      send: (event) => void announce(event).catch((error: unknown) => options.log('a notification failed', error)),
      congested: () => false,
      whenDrained: (callback) => {
        const timer = setTimeout(callback, 0);
        return () => clearTimeout(timer);
      },
    },
  );
  await badge().catch((error: unknown) => options.log('the badge count failed', error));
  return subscription;
}
