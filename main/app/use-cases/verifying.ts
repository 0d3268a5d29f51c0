import { join } from 'node:path';
import type { CheckResult, PlanChecksView } from '../../../shared/checks';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { PlanError } from '../../../shared/errors';
import type { StreamCallback } from '../../../shared/events';
import { type CheckRunnerDeps, failedChecksMessage, runChecks } from '../../engine/checks/check-runner';
import { checksView, criterionVerdicts, declaredChecks, type DeclaredCheck, latestResults, summarize } from '../../engine/checks/verdicts';
import { EngineError } from '../../engine/errors';
import type { ConfinementProbe } from '../../engine/tools/confinement';
import { requireSandboxPresent } from '../sandbox-guards';
import { sandboxHereFor } from '../sandbox-remaking';
import { actionGuard } from './actions';
import type { PlanContext } from './plan-context';
import { recordFailure } from './failures';
import type { RunRegistry } from './run-registry';

/** Where each check's whole output is kept in the data directory. */
export const CHECKS_FOLDER = 'checks';

/**
 * Verify before apply (README.md, "Verify"): the plan's checks run in its sandbox after execute,
 * and again before apply when the sandbox changed since; each criterion gets a verdict.
 */
export function planVerifying(ctx: PlanContext, registry: RunRegistry, confinement?: () => Promise<ConfinementProbe>) {
  const { lifecycle, stores } = ctx;
  const guard = actionGuard(ctx, registry);
  const deps: CheckRunnerDeps = { events: ctx.events, results: stores.checks, outputDir: join(ctx.options.dataDir, CHECKS_FOLDER), tracker: registry.tracker, confinement };

  const sandboxOf = (plan: Plan): string => {
    const root = plan.sandboxRefs[0];
    if (!root) throw new PlanError(`plan ${plan.id} has no sandbox to run its checks in; run it first`, 'wrong_state');
    return root;
  };

  const run = (plan: Plan, checks: readonly DeclaredCheck[]) => runChecks(deps, { planId: plan.id, profile: plan.automationProfile, sandboxRoot: sandboxOf(plan) }, checks);

  /**
   * The verify pass of a plan that has executed (phase apply): every check runs, the summary is
   * kept on the plan, and the plan is Ready to apply, or "Checks failed" (category verification)
   * when one failed. A plan that declares no check is left as it is. The caller holds the plan.
   */
  const verifyPass = (planId: string, streamCallback?: StreamCallback): Promise<Plan> => ctx.streaming(planId, streamCallback, () => pass(planId));

  const pass = async (planId: string): Promise<Plan> => {
    const plan = await ctx.get(planId);
    const checks = declaredChecks(plan, await lifecycle.listDecisions(planId));
    if (checks.length === 0) return plan;
    const begun = await lifecycle.beginPhase(planId, 'apply', ['queued', 'errored'], plan);
    let runId: string;
    let results: CheckResult[];
    try {
      ({ runId, results } = await run(plan, checks));
    } catch (error) {
      await recordFailure(ctx, planId, error);
      throw error;
    }
    const all = await stores.checks.listForPlan(planId);
    const decisions = await lifecycle.listDecisions(planId);
    const summary = summarize(criterionVerdicts(plan, decisions, all), latestResults(checks, all), new Date().toISOString());
    await ctx.events.publish(planId, 'checks_complete', { runId, summary });
    const failed = results.filter((r) => !r.passed);
    if (failed.length === 0) return lifecycle.transition(planId, 'queued', { checks: summary }, begun);
    await lifecycle.update(planId, { checks: summary });
    await recordFailure(ctx, planId, new EngineError(failedChecksMessage(failed), 'verification', { failedChecks: failed.map((r) => r.name) }));
    return await ctx.get(planId);
  };

  /** The pass of the verify action: this process holds the plan's lease meanwhile. */
  const verifyHeld = (plan: Plan, streamCallback?: StreamCallback, onStarted?: () => void): Promise<Plan> => {
    // In team mode the sandbox may live on another machine: it is remade here, holding the plan.
    if (!ctx.options.remakeSandboxes) requireSandboxPresent(plan);
    return registry.hold(
      plan.id,
      async () => {
        await sandboxHereFor(ctx, await ctx.get(plan.id));
        return verifyPass(plan.id, streamCallback);
      },
      onStarted,
    );
  };

  /**
   * The plan, with its checks' verdicts stale at once if the operator changed the sandbox by hand
   * since they ran (in an editor, not the console's): the edit is recorded as theirs, as a retry
   * or apply would record it. Left alone while a run holds the plan, whose own writes are not yet recorded.
   */
  const noticeSandboxEdits = async (planId: string): Promise<Plan> => {
    const plan = await ctx.get(planId);
    if (!plan.checks || plan.checks.stale || !plan.sandboxRefs[0] || plan.processingState === 'processing') return plan;
    if (registry.isRunning(planId) || (await registry.runElsewhere(planId))) return plan;
    return (await ctx.captureHandEdits(plan)).length > 0 ? ctx.get(planId) : plan;
  };

  return {
    verifyPass,

    /** With `verifyEach`: a step's own check, right after the step; a failure fails the step (category verification). */
    async checkStep(plan: Plan, decision: StrategyDecision): Promise<void> {
      if (!decision.check) return;
      const { results } = await run(plan, [{ ...decision.check, decisionId: decision.id }]);
      const failed = results.filter((r) => !r.passed);
      if (failed.length > 0) throw new EngineError(failedChecksMessage(failed), 'verification', { failedChecks: failed.map((r) => r.name) });
    },

    /** Runs the plan's checks again (the `verify` action): a plan ready to apply, or whose checks failed. A plan without checks is left as it is. */
    async verify(planId: string, options: { streamCallback?: StreamCallback; onStarted?: () => void } = {}): Promise<Plan> {
      return verifyHeld(await guard.require('verify', planId), options.streamCallback, options.onStarted);
    },

    /** Before apply: checks whose verdicts went stale run again, so apply never rests on an old verdict. The caller (apply) holds the plan. */
    async verifyIfStale(plan: Plan, streamCallback?: StreamCallback): Promise<Plan> {
      if (!plan.checks?.stale) return plan;
      requireSandboxPresent(plan);
      return verifyPass(plan.id, streamCallback);
    },

    noticeSandboxEdits,

    /** The checks, their latest results and each criterion's verdict with its evidence (stale once the sandbox changed since they ran). */
    async checks(planId: string): Promise<PlanChecksView> {
      const plan = await noticeSandboxEdits(planId);
      return checksView(plan, await lifecycle.listDecisions(planId), await stores.checks.listForPlan(planId));
    },
  };
}

export type PlanVerifying = ReturnType<typeof planVerifying>;
