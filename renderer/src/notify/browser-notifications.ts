import { useEffect } from 'react';
import type { PlanListItem } from '../../../shared/contract';
import { attentionKindOfStatus, notifiesOf } from '../../../shared/attention';
import { planStatus, statusLabel } from '../../../shared/vocabulary';
import { useAppStoreApi } from '../store/react';

/** Whether the operator turned notifications on in this browser (Settings); the browser asks for permission then. */
export const BROWSER_NOTIFY_KEY = 'agents.notify.browser';

export function browserNotificationsOn(): boolean {
  try {
    return localStorage.getItem(BROWSER_NOTIFY_KEY) === 'on' && typeof Notification !== 'undefined' && Notification.permission === 'granted';
  } catch {
    return false;
  }
}

/** Turned on from Settings, never on load: the browser asks for permission at this click. */
export async function turnBrowserNotifications(on: boolean): Promise<boolean> {
  if (!on) {
    localStorage.removeItem(BROWSER_NOTIFY_KEY);
    return false;
  }
  if (typeof Notification === 'undefined') return false;
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') return false;
  localStorage.setItem(BROWSER_NOTIFY_KEY, 'on');
  return true;
}

const needsOperator = (plan: PlanListItem) => plan.needsAttention || plan.awaitingApply;

/**
 * A Web Notification when a plan starts to need the operator (it fails, waits for an answer, or has
 * changes to apply), once notifications are on, which opens that plan when clicked; none for the plan in view in a focused tab. Plans
 * that already needed the operator when the list first loaded are the title's count, not news.
 */
export function useBrowserNotifications(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    // The per-kind switches are the host's settings: read once here, and again whenever Settings opens or saves.
    if (browserNotificationsOn() && !store.getState().settings) void store.getState().loadSettings();
    let known: Map<string, boolean> | null = null;
    return store.subscribe((state) => {
      if (state.plansStatus !== 'loaded') return;
      const previous = known;
      known = new Map(state.plans.map((plan) => [plan.id, needsOperator(plan)]));
      if (!previous || !browserNotificationsOn()) return;
      for (const plan of state.plans) {
        if (!needsOperator(plan) || previous.get(plan.id) === true) continue;
        if (document.hasFocus() && state.planId === plan.id) continue;
        const kind = attentionKindOfStatus(planStatus(plan));
        if (kind && !notifiesOf(state.settings?.notify, kind)) continue;
        const notification = new Notification('CleverAgents', { body: `${plan.name}: ${statusLabel(plan)}`, tag: `${plan.id}:${statusLabel(plan)}` });
        // A click brings the console's tab forward on that plan.
        notification.onclick = () => {
          window.focus();
          store.getState().openPlan(plan.id);
          notification.close();
        };
      }
    });
  }, [store]);
}
