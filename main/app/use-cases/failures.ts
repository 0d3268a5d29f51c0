import type { PlanContext } from './plan-context';

/**
 * A failure outside the executor (making the sandbox: a missing project, one past the size limit,
 * a full disk; a failed check after execute) is recorded like any other: an error with a category
 * and hints, published to every client, and the plan errored. False when the plan's state cannot fail.
 */
export async function recordFailure(ctx: PlanContext, planId: string, error: unknown): Promise<boolean> {
  const { lifecycle } = ctx;
  const plan = await ctx.get(planId);
  if (plan.processingState === 'queued') await lifecycle.beginPhase(planId, plan.phase);
  else if (plan.processingState !== 'processing' && plan.processingState !== 'paused') return false;
  // Not retried automatically: the operator sees the cause at once.
  const noRetry = { ...plan, automationProfile: { ...plan.automationProfile, autoRetryTransient: 0 } };
  const verdict = await ctx.recovery.onFailure({
    plan: noRetry,
    phase: plan.phase,
    error,
    attempt: 1,
    decisionId: null,
    mode: plan.phase === 'strategize' ? 'strategize' : 'runtime',
  });
  const message = error instanceof Error ? error.message : String(error);
  await lifecycle.fail(planId, message, { exceptionType: error instanceof Error ? error.name : 'Error', phase: plan.phase, decisionId: null, attempt: 1, ...verdict.details });
  return true;
}
