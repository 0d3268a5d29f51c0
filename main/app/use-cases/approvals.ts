import type { Plan } from '../../../shared/domain';
import { PlanError, ValidationError } from '../../../shared/errors';
import { statusLabel } from '../../../shared/vocabulary';
import { pendingApproval } from '../../engine/approvals';
import { requireSandboxPresent } from '../sandbox-guards';
import type { Answer, PlanContext, RunOptions } from './plan-context';
import type { RunRegistry } from './run-registry';
import type { PlanRunning } from './running';

/** The operator's answers to what a plan waits for: the call (or the proposed tree) it stopped before. */
export function planApprovals(ctx: PlanContext, registry: RunRegistry, runFrom: PlanRunning['runFrom']) {
  const { lifecycle, stores } = ctx;

  const answer = (planId: string, status: 'approved' | 'rejected', scope: 'once' | 'all' | null, given: Answer, options: RunOptions): Promise<Plan> => {
    // The run goes on in this process: refuse before the answer is recorded if it cannot use the plan's model.
    const plan = ctx.pinModel(ctx.get(planId));
    const pending = pendingApproval(stores.approvals.listForPlan(planId));
    if (!pending) throw new PlanError(`plan ${planId} has no call waiting for approval (it is ${statusLabel(plan)})`, 'wrong_state');
    if (registry.isRunning(planId)) throw new PlanError(`plan ${planId} is still stopping; answer again in a moment`, 'wrong_state');
    requireSandboxPresent(plan);
    const now = new Date().toISOString();
    const reason = given.reason?.trim() || null;
    stores.approvals.update(pending.id, { status, scope, answeredBy: given.by, answeredAt: now, reason });
    const what = scope === 'all' ? `every ${pending.tool} call of the plan` : `${pending.tool ?? 'the plan'}`;
    lifecycle.addDecisionUnder(
      planId,
      pending.decisionId,
      'approval',
      `${status === 'approved' ? 'Approved' : 'Rejected'} ${what}`,
      `${status} by ${given.by} at ${now}${reason ? `: ${reason}` : ''}`,
    );
    ctx.events.publish(planId, 'approval_resolved', {
      approvalId: pending.id,
      decisionId: pending.decisionId,
      tool: pending.tool,
      approved: status === 'approved',
      scope,
      answeredBy: given.by,
      reason,
    });
    if (plan.processingState === 'paused') lifecycle.transition(planId, 'queued');
    const resumeAt = pending.decisionId !== null && pending.callIndex !== null ? { decisionId: pending.decisionId, callIndex: pending.callIndex } : undefined;
    return runFrom(planId, options, resumeAt);
  };

  return {
    /** Approves the call the plan waits for (with `all`, every later call of that tool too), then goes on with the run. */
    approve(planId: string, given: Answer & { all?: boolean }, options: RunOptions = {}): Promise<Plan> {
      return answer(planId, 'approved', given.all ? 'all' : 'once', given, options);
    },

    /** Rejects the call the plan waits for: the run goes on, and the step fails with category `rejected`. */
    reject(planId: string, given: Answer, options: RunOptions = {}): Promise<Plan> {
      if (!given.reason?.trim()) throw new ValidationError('reason', 'is required: say why the call is rejected');
      return answer(planId, 'rejected', null, given, options);
    },
  };
}

export type PlanApprovals = ReturnType<typeof planApprovals>;
