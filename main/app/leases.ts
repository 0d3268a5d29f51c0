import type { Plan, StrategyDecision } from '../../shared/domain';
import type { ErrorRecord } from '../../shared/error-records';
import { stepsInOrder } from '../../shared/decision-tree';
import { newId } from '../../shared/ids';
import { CATEGORY_POLICIES, ErrorRecoveryService, recoveryHints } from '../engine/run/error-recovery-service';
import type { PlanLifecycleService } from '../engine/run/lifecycle';
import type { ErrorLog } from '../engine/ports/recovery';
import { isLeaseLive, type LeaseStore } from '../engine/ports/leases';
import { type ApprovalStore, pendingApproval } from '../engine/ports/approvals';

/**
 * At start-up: a plan left processing or paused whose owner is gone is marked errored, category
 * `interrupted`, and the decision that was running is marked failed so retry resumes there.
 */
export async function recoverInterruptedPlans(lifecycle: PlanLifecycleService, leases: LeaseStore, errors: ErrorLog, approvals: ApprovalStore): Promise<string[]> {
  const recovered: string[] = [];
  for (const plan of await lifecycle.listPlansInStates(['processing', 'paused'])) {
    // Waiting for the operator's approval is a stop that outlives the process, not an interruption.
    if (plan.waitingFor === 'approval') continue;
    if (isLeaseLive(await leases.get(plan.id))) continue;
    const running = await runningStep(lifecycle, plan);
    // Stopped between storing its approval request and pausing: it waits for the operator, as it meant to.
    if (pendingApproval(await approvals.listForPlan(plan.id))) {
      if (running) await lifecycle.saveDecisionStatus({ id: running.id, status: 'pending', updatedAt: new Date().toISOString() });
      await lifecycle.transition(plan.id, 'paused', { waitingFor: 'approval' });
      continue;
    }
    await markInterrupted(lifecycle, errors, plan, `The process running this plan stopped during ${plan.phase}`);
    recovered.push(plan.id);
  }
  return recovered;
}

/**
 * The step that was running. Its status is committed a few milliseconds after it starts, so a
 * process that died sooner left none running: the first step not done is the one it was in.
 */
async function runningStep(lifecycle: PlanLifecycleService, plan: Plan): Promise<StrategyDecision | undefined> {
  const decisions = await lifecycle.listDecisions(plan.id);
  return decisions.find((d) => d.status === 'running') ?? (plan.phase === 'execute' ? stepsInOrder(decisions).find((d) => d.status === 'pending' || d.status === 'failed') : undefined);
}

/**
 * Marks a plan interrupted: errored with category `interrupted` (the operator reads "Interrupted"),
 * the step it was in failed so retry resumes there, and retry as its next step.
 * `cause` opens the message: a process that died, or an operator's Ctrl-C.
 */
export function markInterrupted(lifecycle: PlanLifecycleService, errors: ErrorLog, plan: Plan, cause: string): Promise<void> {
  // One unit: the failed step, the record, its decision and the plan's state commit together.
  return lifecycle.unit(async () => {
    const running = await runningStep(lifecycle, plan);
    if (running) await lifecycle.saveDecisions([{ ...running, status: 'failed', updatedAt: new Date().toISOString() }]);
    const policy = CATEGORY_POLICIES.interrupted;
    const message = `${cause}${running ? ` at step "${running.description}"` : ''}`;
    const record: ErrorRecord = {
      id: newId(),
      planId: plan.id,
      phase: plan.phase,
      decisionId: running?.id ?? null,
      attempt: 1,
      category: 'interrupted',
      retriable: policy.retriable,
      recoveryAction: policy.action,
      message,
      stack: null,
      hint: policy.hint,
      next: recoveryHints('interrupted')[0] ?? null,
      outcome: 'gave_up',
      createdAt: new Date().toISOString(),
    };
    await errors.record(record);
    await lifecycle.events.publish(plan.id, 'error_recorded', { ...record });
    await new ErrorRecoveryService(errors, lifecycle).addRecoveryDecision(plan, running?.id ?? null, 'Interrupted', message, 'failed');
    await lifecycle.fail(plan.id, message, {
      exceptionType: 'Interrupted',
      mode: plan.phase === 'strategize' ? 'strategize' : 'runtime',
      phase: plan.phase,
      decisionId: running?.id ?? null,
      category: 'interrupted',
      retryCount: 0,
      maxRetries: plan.automationProfile.autoRetryTransient,
      retriable: policy.retriable,
      recoveryAction: policy.action,
      hint: policy.hint,
      next: record.next,
    });
  });
}
