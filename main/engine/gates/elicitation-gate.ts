import { isDeepStrictEqual } from 'node:util';
import type { Approval } from '../../../shared/approvals';
import type { StrategyDecision } from '../../../shared/domain';
import { answerOf, DEFAULT_QUESTION_TIMEOUT_MS, type Elicitation, type ElicitationAnswer } from '../../../shared/elicitation';
import type { AutomationProfile } from '../../../shared/profiles';
import { type ApprovalStore, requestApproval } from '../ports/approvals';
import { ApprovalPending } from '../errors';
import { newId } from '../../../shared/ids';
import type { EventPublisher } from '../ports/event-stream';

/** The same server asking the same thing, compared as stored (JSON). */
function sameQuestion(asked: Elicitation | undefined, question: Elicitation): boolean {
  return asked !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(asked)), JSON.parse(JSON.stringify(question)));
}

/** The questions one call's server asks while it runs: answered from the operator's approvals, in order. */
export interface CallQuestions {
  /** The call's invocation id: the one its earlier run asked with while that question's answer is unused, else a new one. */
  callId(): Promise<string>;
  /** The operator's answer, or ApprovalPending once the question is stored and waits for one. */
  ask(question: Elicitation, options?: { timeoutMs?: number }): Promise<ElicitationAnswer>;
  /** The call ended (not stopped for a question): its answers are used up, and a later run of it asks again. */
  settle(): Promise<void>;
}

/**
 * A server's question mid-call (MCP `elicitation/create`) is the operator's decision: the first
 * time it stores an approval of kind `input` carrying the question and stops the run
 * (ApprovalPending). The answer can come from any process; the run then makes the same call again,
 * and when its server asks the same question the stored answer goes back (approved: accept with
 * the operator's content, rejected: decline). A call that asks several questions stops at each new
 * one, and replays the ones already answered. Under full-auto nobody is asked: the server hears
 * decline.
 */
export class ElicitationGate {
  constructor(
    private readonly store: ApprovalStore,
    private readonly events: EventPublisher,
    private readonly planId: string,
    private readonly profile: Pick<AutomationProfile, 'name'>,
  ) {}

  forCall(decision: Pick<StrategyDecision, 'id' | 'description'>, callIndex: number, tool: string): CallQuestions {
    const used = new Set<string>();
    let invocationId: string | null = null;
    const atThisCall = async () => (await this.store.listForPlan(this.planId)).filter((a) => a.kind === 'input' && a.decisionId === decision.id && a.callIndex === callIndex && a.usedAt === null);
    return {
      callId: async () => {
        invocationId ??= (await atThisCall()).findLast((a) => a.invocationId !== undefined)?.invocationId ?? newId();
        return invocationId;
      },
      ask: async (question, options = {}) => {
        if (this.profile.name === 'full-auto') return { action: 'decline' };
        const atCall = (await atThisCall()).filter((a) => !used.has(a.id) && sameQuestion(a.elicitation, question));
        const answered = atCall.find((a) => a.status !== 'pending');
        if (answered) {
          used.add(answered.id);
          return answerOf(answered.status as 'approved' | 'rejected', answered.args, answered.cancelled === true);
        }
        const waiting = atCall.find((a) => a.status === 'pending') ?? (await this.request(decision, callIndex, tool, question, invocationId, options.timeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS));
        throw new ApprovalPending(waiting.id);
      },
      settle: async () => {
        const now = new Date().toISOString();
        for (const id of used) await this.store.update(id, { usedAt: now });
      },
    };
  }

  private request(decision: Pick<StrategyDecision, 'id' | 'description'>, callIndex: number, tool: string, question: Elicitation, invocationId: string | null, timeoutMs: number): Promise<Approval> {
    return requestApproval(this.store, this.events, {
      planId: this.planId,
      kind: 'input',
      decisionId: decision.id,
      callIndex,
      tool,
      args: {},
      description: decision.description,
      rationale: `The MCP server "${question.server}" asks: ${question.message}`,
      diff: null,
      hunks: null,
      elicitation: question,
      ...(invocationId ? { invocationId } : {}),
      expiresAt: new Date(Date.now() + timeoutMs).toISOString(),
    });
  }
}

/**
 * Whether a call the operator approved, and which then stopped for its server's question, is
 * still approved: an unused answer (or a question waiting) at the same call, asked after the
 * approval was used, means the call has not finished yet.
 */
export function stoppedForQuestion(approval: Approval, approvals: readonly Approval[]): boolean {
  const usedAt = approval.usedAt;
  return (
    usedAt !== null &&
    approvals.some((q) => q.kind === 'input' && q.decisionId === approval.decisionId && q.callIndex === approval.callIndex && q.usedAt === null && q.createdAt >= usedAt)
  );
}
