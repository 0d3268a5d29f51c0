import { ValidationError } from '../../shared/errors';

/** Most breakpoints one plan may hold; a bound, so a misbehaving client cannot grow the host's memory. */
export const MAX_BREAKPOINTS_PER_PLAN = 10_000;

/**
 * Breakpoints the operator set on a plan, kept by the host so they apply to the next run or retry;
 * a running plan's RunController holds its own copy, which the router keeps in step.
 */
export class BreakpointBook {
  private readonly byPlan = new Map<string, Set<string>>();

  set(planId: string, decisionId: string, enabled: boolean): string[] {
    const set = this.byPlan.get(planId) ?? new Set<string>();
    if (enabled && !set.has(decisionId) && set.size >= MAX_BREAKPOINTS_PER_PLAN) {
      throw new ValidationError('decisionId', `a plan may hold at most ${MAX_BREAKPOINTS_PER_PLAN} breakpoints`);
    }
    if (enabled) set.add(decisionId);
    else set.delete(decisionId);
    if (set.size === 0) this.byPlan.delete(planId);
    else this.byPlan.set(planId, set);
    return this.list(planId);
  }

  list(planId: string): string[] {
    return [...(this.byPlan.get(planId) ?? [])];
  }

  forget(planId: string): void {
    this.byPlan.delete(planId);
  }
}
