import { existsSync } from 'node:fs';
import type { ActionId } from '../../../shared/action-ids';
import { allowed } from '../../../shared/actions';
import { factsOfPlan, type PlanFacts, unfinishedRewind } from '../../../shared/action-rules';
import type { Plan } from '../../../shared/domain';
import type { StepCounts } from '../ports/plan-repository';
import { PlanError } from '../../../shared/errors';
import { type ApprovalStore, pendingApproval } from '../ports/approvals';
import { isLeaseLive, type LeaseStore } from '../ports/leases';

/** Where the facts of a plan come from: its tree, its approvals, its lease, and whether this process runs it. */
export interface FactSources {
  /** The plan's steps counted by status. */
  steps(planId: string): Promise<StepCounts>;
  approvals: Pick<ApprovalStore, 'listForPlan'>;
  leases: Pick<LeaseStore, 'get'>;
  /** This process runs the plan now. */
  runningHere(planId: string): boolean;
  /** How many checkpoints the plan has. */
  checkpoints(planId: string): Promise<number>;
  /** Whether part of the plan's changeset is applied to its project. */
  partlyApplied(planId: string): Promise<boolean>;
  /** The step a rewind of the plan that began and has not finished goes back to before (its journal), else null. */
  rewindPending?(planId: string): Promise<number | null>;
}

/** The facts the action rules (shared/actions.ts) read, as the stores and this process know them. */
export async function planFacts(plan: Plan, sources: FactSources): Promise<PlanFacts> {
  const lease = await sources.leases.get(plan.id);
  const runHere = sources.runningHere(plan.id);
  const elsewhere = lease !== undefined && lease.pid !== process.pid && isLeaseLive(lease);
  const steps = await sources.steps(plan.id);
  return {
    ...factsOfPlan(plan),
    running: runHere || elsewhere || plan.processingState === 'processing',
    runHere,
    pendingApproval: pendingApproval(await sources.approvals.listForPlan(plan.id)) !== undefined,
    // A step still marked running in a stopped plan was cut off: it counts as the failed one.
    failedStep: steps.failedOrRunning > 0,
    steps: steps.total,
    missingSandbox: plan.sandboxRefs[0] && !existsSync(plan.sandboxRefs[0]) ? plan.sandboxRefs[0] : null,
    checkpoints: await sources.checkpoints(plan.id),
    partlyApplied: await sources.partlyApplied(plan.id),
    rewindPending: sources.rewindPending ? await sources.rewindPending(plan.id) : unfinishedRewind(plan),
  };
}

/** The one guard of every action: refuses with the rule's reason and code (wrong_state unless the rule says otherwise); with `args`, an action that needs confirming is refused unless they confirm it. */
export function requireAllowed(action: ActionId, facts: PlanFacts, args?: Record<string, unknown>): void {
  const verdict = allowed(action, facts, args);
  if (!verdict.allowed) throw new PlanError(verdict.reason, verdict.code);
}
