import { type BudgetAsk, BudgetAskSchema, describeBudgetAsk } from '../../../shared/agent';
import type { Approval } from '../../../shared/approvals';
import type { AutomationProfile } from '../../../shared/profiles';
import type { StrategyDecision } from '../../../shared/domain';
import { type ApprovalStore, requestApproval } from '../ports/approvals';
import { ApprovalPending, EngineError } from '../errors';
import type { EventPublisher } from '../ports/event-stream';

/**
 * When a step of an agent plan used its turns or its output tokens, the run pauses and asks the
 * operator for more: one approval of kind `budget` per time the step ran out (keyed by the turns it
 * had made). Approved, the step goes on in the same conversation with `more` added to that budget;
 * rejected, it fails with category `budget`. Under full-auto nobody is asked, and the step fails.
 * The plan's cost budget is asked about the same way, but for the plan: every approved ask adds to
 * it (grantedUsd), and one ask is open at a time.
 */
export class BudgetGate {
  constructor(
    private readonly store: ApprovalStore,
    private readonly events: EventPublisher,
    private readonly planId: string,
    private readonly profile: AutomationProfile,
  ) {}

  /** The extra budget the operator granted for the step, or throws: ApprovalPending while asked, `exhausted` when refused. */
  async extend(step: Pick<StrategyDecision, 'id' | 'description'>, ask: BudgetAsk, atTurn: number, exhausted: () => EngineError): Promise<number> {
    if (this.profile.name === 'full-auto') throw exhausted();
    const cost = ask.limit === 'costUsd';
    const asked = (await this.store.listForPlan(this.planId))
      .filter((a) => a.kind === 'budget' && a.usedAt === null && limitOf(a) === ask.limit)
      // An approved cost ask already raised the plan's budget (grantedUsd).
      .filter((a) => (cost ? a.status !== 'approved' : a.decisionId === step.id && a.callIndex === atTurn));
    const answered = asked.find((a) => a.status !== 'pending');
    if (answered) {
      await this.store.update(answered.id, { usedAt: new Date().toISOString() });
      if (answered.status === 'approved') return BudgetAskSchema.parse(answered.args).more;
      const refused = exhausted();
      throw new EngineError(`${refused.message}; ${answered.answeredBy ?? 'the operator'} gave it no more: ${answered.reason ?? 'no reason given'}`, 'budget', {
        ...refused.details,
        approvalId: answered.id,
      });
    }
    const pending =
      asked.find((a) => a.status === 'pending') ??
      (await requestApproval(this.store, this.events, {
        planId: this.planId,
        kind: 'budget',
        decisionId: step.id,
        callIndex: atTurn,
        tool: null,
        args: ask,
        description: step.description,
        rationale: describeBudgetAsk(`Step "${step.description}"`, ask),
        diff: null,
        hunks: null,
      }));
    throw new ApprovalPending(pending.id);
  }

  /** What the operator added to a step's budget and the step took up (a coding agent's step counts its tokens across turns and runs). */
  async grantedFor(decisionId: string, limit: 'turns' | 'outputTokens'): Promise<number> {
    return (await this.store.listForPlan(this.planId))
      .filter((a) => a.kind === 'budget' && a.decisionId === decisionId && a.status === 'approved' && a.usedAt !== null && limitOf(a) === limit)
      .reduce((sum, a) => sum + BudgetAskSchema.parse(a.args).more, 0);
  }

  /** US dollars the operator added to the plan's cost budget. */
  async grantedUsd(): Promise<number> {
    return (await this.store.listForPlan(this.planId))
      .filter((a) => a.kind === 'budget' && a.status === 'approved' && limitOf(a) === 'costUsd')
      .reduce((sum, a) => sum + BudgetAskSchema.parse(a.args).more, 0);
  }
}

const limitOf = (approval: Approval) => BudgetAskSchema.parse(approval.args).limit;
