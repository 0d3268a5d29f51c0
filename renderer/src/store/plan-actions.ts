import type { ActionId, ActionState } from '../../../shared/action-ids';
import type { PlanSlice } from './state/plan';

/** The host's word on one action: allowed (perhaps once confirmed, for this reason), or refused, with why. */
export type HostVerdict = { allowed: true; confirm?: string } | { allowed: false; reason: string };

// A selector must return the same object for the same answer.
const verdicts = new WeakMap<ActionState, HostVerdict>();
const notListed = new Map<ActionId, HostVerdict>();

function verdictOf(listed: ActionState): HostVerdict {
  let verdict = verdicts.get(listed);
  if (!verdict) {
    verdict = !listed.allowed ? { allowed: false, reason: listed.reason ?? 'the plan does not allow it now' } : listed.confirm === undefined ? { allowed: true } : { allowed: true, confirm: listed.confirm };
    verdicts.set(listed, verdict);
  }
  return verdict;
}

/**
 * Whether the open plan allows `action` now and, if not, why: as the host decided it, from the
 * `actions` that plans.get lists (its one fact builder, main/engine/gates/action-guard.ts). The
 * console's buttons, keys and dialogs are enabled from this alone; before the list arrives,
 * nothing is offered.
 */
export function actionState(state: Pick<PlanSlice, 'planActions'>, action: ActionId): HostVerdict {
  const listed = state.planActions?.find((a) => a.id === action);
  if (listed) return verdictOf(listed);
  let waiting = notListed.get(action);
  if (!waiting) notListed.set(action, (waiting = { allowed: false, reason: 'the plan is still loading' }));
  return waiting;
}
