import { BUDGET_LIMITS, type BudgetAsk, BudgetAskSchema, type BudgetMore } from '../../../shared/agent';
import type { Approval } from '../../../shared/approvals';
import type { Plan } from '../../../shared/domain';
import { checkedAnswer } from '../../../shared/elicitation';
import { ValidationError } from '../../../shared/errors';
import { pendingApproval } from '../../engine/ports/approvals';
import { requireSandboxPresent } from '../sandbox-guards';
import type { Answer, PlanContext } from './plan-context';
import type { RunOptions } from '../run-vocabulary';
import type { RunRegistry } from './run-registry';
import type { PlanRunning } from './running';
import { actionGuard } from './actions';
import { answerHost } from '../operator';
import { mcpAuthFile, signInFor } from '../mcp-auth';
import { mcpServersOf } from '../mcp-settings';

/** The operator's answers to what a plan waits for: the call (or the proposed tree) it stopped before. */
export function planApprovals(ctx: PlanContext, registry: RunRegistry, runFrom: PlanRunning['runFrom']) {
  const { lifecycle, stores } = ctx;
  const guard = actionGuard(ctx, registry);

  const answer = async (
    planId: string,
    status: 'approved' | 'rejected',
    scope: 'once' | 'all' | null,
    given: Answer & { more?: BudgetMore; input?: Record<string, unknown>; cancel?: boolean; only?: (pending: Approval) => boolean },
    options: RunOptions,
  ): Promise<Plan | null> => {
    // The run goes on in this process: refuse before the answer is recorded if it cannot use the plan's model.
    const plan = await ctx.pinModel(await guard.require(status === 'approved' ? 'approve' : 'reject', planId));
    // The rule asks for a pending approval.
    const pending = pendingApproval(await stores.approvals.listForPlan(planId)) as Approval;
    if (given.only && !given.only(pending)) return null;
    const cancelled = given.cancel === true;
    if (cancelled && pending.kind !== 'input') throw new ValidationError('cancel', "applies only to an MCP server's question; reject the call with --reason");
    requireSandboxPresent(plan, ctx.options);
    // Approving a sign-in signs in (the browser opens on this machine), unless `agents mcp login` already did.
    if (pending.kind === 'signin' && status === 'approved') await signInFor(mcpAuthFile(ctx.options.dataDir, ctx.options.settings.codec), mcpServersOf(plan, ctx.options.settings), pending.tool ?? '');
    const args = grantedBudget(pending, given.more ?? {}) ?? answeredQuestion(pending, status, given.input);
    const now = new Date().toISOString();
    const reason = given.reason?.trim() || null;
    const host = given.host ?? answerHost();
    // The answer, its decision, its event and the plan's state commit together.
    await lifecycle.unit(async () => {
      await stores.approvals.update(pending.id, { status, scope, answeredBy: given.by, answeredFrom: host, answeredAt: now, reason, ...(args ? { args } : {}), ...(cancelled ? { cancelled } : {}) });
      const what = pending.kind === 'signin' ? `the sign-in to ${pending.tool}` : pending.kind === 'input' ? `the question of ${pending.elicitation?.server ?? 'the MCP server'}` : pending.kind === 'budget' ? (limitIs(pending, 'costUsd') ? 'more US dollars for the plan' : `more ${budgetLimit(pending).unit} for the step`) : scope === 'all' ? `every ${pending.tool} call of the plan` : `${pending.tool ?? 'the plan'}`;
      await lifecycle.addDecisionUnder(
        planId,
        pending.decisionId,
        'approval',
        `${status === 'approved' ? 'Approved' : cancelled ? 'Cancelled' : 'Rejected'} ${what}`,
        `${cancelled ? 'cancelled' : status} by ${given.by} on ${host} at ${now}${reason ? `: ${reason}` : ''}`,
      );
      await ctx.events.publish(planId, 'approval_resolved', {
        approvalId: pending.id,
        decisionId: pending.decisionId,
        tool: pending.tool,
        approved: status === 'approved',
        scope,
        answeredBy: given.by,
        host,
        reason,
      });
      if (plan.processingState === 'paused') await lifecycle.transition(planId, 'queued');
    });
    const resumeAt = pending.decisionId !== null && pending.callIndex !== null ? { decisionId: pending.decisionId, callIndex: pending.callIndex } : undefined;
    return runFrom(planId, options, resumeAt);
  };

  return {
    /**
     * Approves the call the plan waits for (with `all`, every later call of that tool too), then goes
     * on with the run. For a step out of budget, `more` says how much it gets (default: its budget again);
     * for a server's question, `input` is the answer (checked against the question; its defaults fill the rest).
     */
    async approve(planId: string, given: Answer & { all?: boolean; more?: BudgetMore; input?: Record<string, unknown> }, options: RunOptions = {}): Promise<Plan> {
      return (await answer(planId, 'approved', given.all ? 'all' : 'once', given, options)) as Plan;
    },

    /**
     * Rejects the call the plan waits for: the run goes on, and the step fails with category `rejected`.
     * A server's question is declined; with `cancel` it is cancelled instead (no reason needed), and
     * the server hears cancel.
     */
    async reject(planId: string, given: Answer & { cancel?: boolean }, options: RunOptions = {}): Promise<Plan> {
      if (!given.reason?.trim() && !given.cancel) {
        await guard.require('reject', planId);
        throw new ValidationError('reason', 'is required: say why the call is rejected');
      }
      return (await answer(planId, 'rejected', null, given, options)) as Plan;
    },

    /**
     * Cancels the server's question `approvalId` if the plan still waits for it and its time limit
     * has passed, and goes on with the run; null when there was nothing to cancel.
     */
    async expireQuestion(planId: string, approvalId: string, options: RunOptions = {}): Promise<Plan | null> {
      const expired = (a: Approval) => a.id === approvalId && a.kind === 'input' && a.expiresAt !== undefined && Date.parse(a.expiresAt) <= Date.now();
      const waiting = pendingApproval(await stores.approvals.listForPlan(planId));
      if (!waiting || !expired(waiting)) return null;
      const ms = Date.parse(waiting.expiresAt as string) - Date.parse(waiting.createdAt);
      const limit = ms < 60_000 ? `${ms / 1000} s` : `${Math.round(ms / 60_000)} min`;
      return answer(planId, 'rejected', null, { by: 'the time limit', reason: `no answer within ${limit}`, cancel: true, only: expired }, options);
    },
  };
}

export type PlanApprovals = ReturnType<typeof planApprovals>;


/** The operator's answer to a server's question, checked against it (its defaults filled in); null for any other approval. Bad input is refused before anything is recorded. */
function answeredQuestion(pending: Approval, status: 'approved' | 'rejected', input: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (pending.kind !== 'input' || !pending.elicitation) {
    if (input !== undefined) throw new ValidationError('input', "applies only to an MCP server's question; the plan waits for something else");
    return null;
  }
  if (status === 'rejected') return null;
  const checked = checkedAnswer(pending.elicitation.requestedSchema, input ?? {});
  if ('problem' in checked) throw new ValidationError('input', `${checked.problem}; nothing was recorded`);
  return checked.content;
}

const budgetLimit = (approval: Approval) => BUDGET_LIMITS[BudgetAskSchema.parse(approval.args).limit];

/** The budget approval's args with the operator's amount; null when there is nothing to change. A wrong amount is bad input. */
function grantedBudget(pending: Approval, more: BudgetMore): BudgetAsk | null {
  const given = (Object.keys(BUDGET_LIMITS) as (keyof typeof BUDGET_LIMITS)[]).filter((limit) => more[limit] !== undefined);
  if (given.length === 0) return null;
  const flag = BUDGET_LIMITS[given[0]].flag;
  if (pending.kind !== 'budget') throw new ValidationError(flag, 'applies only to a step out of turns or output tokens, or a plan over its cost');
  const ask = BudgetAskSchema.parse(pending.args);
  const amount = more[ask.limit];
  if (amount === undefined) throw new ValidationError(flag, `does not apply: ${ranOut(pending)}; use ${BUDGET_LIMITS[ask.limit].flag}`);
  return { ...ask, more: amount };
}

const ranOut = (approval: Approval) => (limitIs(approval, 'costUsd') ? 'the plan reached its cost budget' : `the step ran out of ${budgetLimit(approval).unit}`);
const limitIs = (approval: Approval, limit: keyof typeof BUDGET_LIMITS) => BudgetAskSchema.parse(approval.args).limit === limit;
