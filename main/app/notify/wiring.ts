import { statusLabel } from '../../../shared/vocabulary';
import type { PlanService } from '../plan-service';
import type { NotifySettings, SettingsStore } from '../settings';
import { notifiesOf } from '../../../shared/attention';
import { startWebhookNotifier } from './webhook';

/** How long closing the app waits for webhook posts still in flight: a short command must not lose its last one. */
const CLOSE_WAIT_MS = 15_000;

/** The settings' notifications, or none (a settings file that does not parse: reported where it is used). */
function notifyOf(settings: SettingsStore): NotifySettings | undefined {
  try {
    return settings.read().notify;
  } catch {
    return undefined;
  }
}

/** The webhook notifier of one process (CLI, `agents serve`, the desktop app, a team worker), over its own events. */
export function notifyWebhook(service: Pick<PlanService, 'events' | 'get'>, settings: SettingsStore, env: NodeJS.ProcessEnv) {
  const base = Number(env.AGENTS_NOTIFY_RETRY_MS) || 1000;
  const notifier = startWebhookNotifier(service.events, {
    url: () => notifyOf(settings)?.webhook ?? null,
    sends: (kind) => notifiesOf(notifyOf(settings), kind),
    plan: async (planId) => {
      const plan = await service.get(planId);
      return { name: plan.name, status: statusLabel(plan) };
    },
    log: (message) => process.stderr.write(`agents: ${message}\n`),
    backoffMs: (attempt) => base * 2 ** (attempt - 1),
  });
  let closing: Promise<void> | null = null;
  return {
    close: () =>
      (closing ??= (async () => {
        notifier.dispose();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([notifier.settled(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      })()),
  };
}
