import { compareAscii } from './compare';
import type { Plan } from './domain';
import type { PlanStanding } from './vocabulary';

/** A failure, an interrupted run, or a call waiting for the operator's answer. */
export function needsAttention(plan: PlanStanding): boolean {
  return plan.processingState === 'errored' || (plan.processingState === 'paused' && plan.waitingFor === 'approval');
}

/**
 * The order plans are listed in, by the console and by `agents plan list`: those that need the
 * operator first, then newest first (a later id breaks a tie of one millisecond: ids grow with time).
 */
export function comparePlansForList(a: PlanStanding & Pick<Plan, 'createdAt' | 'id'>, b: PlanStanding & Pick<Plan, 'createdAt' | 'id'>): number {
  return Number(needsAttention(b)) - Number(needsAttention(a)) || compareAscii(b.createdAt, a.createdAt) || compareAscii(b.id, a.id);
}
