// A server's question that nobody answers is cancelled at its time limit (its `expiresAt`), as the
// MCP client of an editor cancels a dialog left open: the server hears cancel and the plan goes on.
// The long-lived hosts (agents serve, the desktop app) keep the timers; a CLI that stopped with
// exit 3 has gone, and the question waits for whoever answers it first.
import type { Approval } from '../../shared/approvals';
import type { Disposable } from '../../shared/lifecycle';
import type { PlanService } from './plan-service';

type Log = (message: string, error: unknown) => void;

/** Timers can wait at most about 24.8 days; a longer limit is looked at again then. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export function watchQuestionTimeouts(service: Pick<PlanService, 'events' | 'approvals' | 'expireQuestion' | 'listItems'>, log: Log): Disposable {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let disposed = false;

  const expire = (planId: string, approvalId: string) => {
    timers.delete(approvalId);
    if (disposed) return;
    service.expireQuestion(planId, approvalId).catch((error: unknown) => log(`the question ${approvalId} of plan ${planId} could not be cancelled at its time limit`, error));
  };
  const schedule = (approval: Approval) => {
    if (approval.kind !== 'input' || approval.status !== 'pending' || !approval.expiresAt || timers.has(approval.id) || disposed) return;
    const delay = Math.max(0, Date.parse(approval.expiresAt) - Date.now());
    const timer = setTimeout(() => (delay > MAX_DELAY_MS ? (timers.delete(approval.id), schedule(approval)) : expire(approval.planId, approval.id)), Math.min(delay, MAX_DELAY_MS));
    timer.unref?.();
    timers.set(approval.id, timer);
  };
  const look = (planId: string) =>
    service
      .approvals(planId)
      .then(({ pending }) => pending && schedule(pending))
      .catch((error: unknown) => log(`the questions of plan ${planId} could not be read`, error));

  const unsubscribe = service.events.subscribe((event) => {
    if (event.type === 'approval_requested' && event.data.kind === 'input') void look(event.planId);
  });
  // Questions asked before this host started (or while it was down).
  void service
    .listItems({ state: 'paused' })
    .then((plans) => Promise.all(plans.map((plan) => look(plan.id))))
    .catch((error: unknown) => log('the waiting questions could not be listed', error));

  return {
    dispose() {
      disposed = true;
      unsubscribe();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
