import type { ActionId, ActionState } from '../../../shared/action-ids';
import { actionList } from '../../../shared/actions';
import type { PlanFacts } from '../../../shared/action-rules';
import type { Plan } from '../../../shared/domain';
import { planFacts, requireAllowed } from '../../engine/gates/action-guard';
import type { PlanContext } from './plan-context';
import type { RunRegistry } from './run-registry';

/** The guard every use case calls first: the action table's rule for the plan as this process sees it. */
export function actionGuard(ctx: PlanContext, registry: RunRegistry) {
  /** `held`: the caller holds the plan (RunRegistry.hold), so its own entry in the registry is no other run. */
  const facts = async (plan: Plan, held = false): Promise<PlanFacts> => {
    const found = await planFacts(plan, {
      steps: (id) => ctx.lifecycle.stepCounts(id),
      approvals: ctx.stores.approvals,
      leases: ctx.stores.leases,
      runningHere: (id) => !held && registry.isRunning(id),
      checkpoints: (id) => ctx.stores.checkpoints.count(id),
      partlyApplied: async (id) => (await ctx.stores.applied.list(id)).length > 0,
      rewindPending: async (id) => (await ctx.stores.checkpoints.pendingRewinds()).find((j) => j.planId === id)?.toStep ?? null,
    });
    // A run remakes a sandbox that is gone; verify and rewind, which do not, still refuse (requireSandboxPresent).
    return ctx.options.remakeSandboxes ? { ...found, missingSandbox: null } : found;
  };
  return {
    facts,
    /** The same check made again by a use case once it holds the plan: what changed while it waited counts, its own hold does not. */
    async requireHeld(action: ActionId, planId: string, args?: Record<string, unknown>): Promise<Plan> {
      const plan = await ctx.get(planId);
      requireAllowed(action, await facts(plan, true), args);
      return plan;
    },
    /** The plan, read once, when `action`'s rule allows it; else the rule's refusal (shared/actions.ts). */
    async require(action: ActionId, planId: string, args?: Record<string, unknown>): Promise<Plan> {
      const plan = await ctx.get(planId);
      requireAllowed(action, await facts(plan), args);
      return plan;
    },
  };
}

/** How long the action list waits for a stopped run of this process to end. */
const UNWIND_WAIT_MS = 2000;

/** A run no longer works on a plan in this state: it failed, finished a phase, ended, or waits for the operator's answer (not a pause between steps, which the run holds). */
const hasStopped = (plan: Plan) => plan.processingState === 'errored' || plan.processingState === 'queued' || plan.processingState === 'complete' || plan.processingState === 'cancelled' || (plan.processingState === 'paused' && plan.waitingFor === 'approval');

/** What the operator may do to a plan now, and the run controls (step, continue, pause) under the same rules. */
export function planActions(ctx: PlanContext, registry: RunRegistry) {
  const guard = actionGuard(ctx, registry);
  return {
    /** Every action with whether the plan allows it now and, if not, why (`plans.get`, `plan show --json`). */
    async actions(planId: string): Promise<ActionState[]> {
      const plan = await ctx.get(planId);
      // A run of this process that has stopped (failed, done, or waiting for an answer) is still
      // unwinding when its last event goes out, and a console asks for the list on that event: the
      // list waits for the run's end (a moment), else it would say "already running" until the next event.
      const unwinding = registry.runs.get(planId);
      if (unwinding && hasStopped(plan)) {
        await Promise.race([unwinding.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, UNWIND_WAIT_MS).unref())]);
        return actionList(await guard.facts(await ctx.get(planId)));
      }
      return actionList(await guard.facts(plan));
    },
    /** Throws the rule's refusal unless `action` is allowed now; the plan otherwise. */
    requireAllowed: (action: ActionId, planId: string): Promise<Plan> => guard.require(action, planId),
    /** Step, continue or pause this process's run of the plan. */
    async control(planId: string, action: 'step' | 'continue' | 'pause'): Promise<Plan> {
      await guard.require(action, planId);
      registry.controller(planId)[action]();
      return ctx.get(planId);
    },
  };
}

export type PlanActions = ReturnType<typeof planActions>;
