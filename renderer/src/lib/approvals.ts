import type { Approval } from '../../../shared/approvals';
import type { StrategyDecision } from '../../../shared/domain';

/** The answer an `approval` decision of the tree records, as the approvals list holds it. */
export interface ApprovalAnswer {
  approved: boolean;
  /** `all`: every later call of the tool was approved too. */
  scope: Approval['scope'];
  tool: string | null;
  by: string | null;
  /** The machine it was answered on; null for answers recorded before it was kept. */
  from: string | null;
  at: string | null;
  reason: string | null;
}

/**
 * Pairs each `approval` decision with the approval it answered. The host adds the decision under
 * the step right after storing the answer, so per step the n-th decision (in sibling order) is the
 * n-th answer (in time order). The decision itself carries the answer only as prose.
 */
export function answersByDecision(decisions: Readonly<Record<string, StrategyDecision>>, approvals: readonly Approval[], rootId: string | null): Map<string, ApprovalAnswer> {
  const answered = new Map<string, Approval[]>();
  for (const approval of approvals) {
    if (approval.status === 'pending' || approval.answeredAt === null) continue;
    const step = approval.decisionId ?? rootId;
    if (step === null) continue;
    answered.set(step, [...(answered.get(step) ?? []), approval]);
  }
  const recorded = new Map<string, StrategyDecision[]>();
  for (const decision of Object.values(decisions)) {
    if (decision.type !== 'approval' || decision.parentId === null) continue;
    recorded.set(decision.parentId, [...(recorded.get(decision.parentId) ?? []), decision]);
  }
  const result = new Map<string, ApprovalAnswer>();
  for (const [step, list] of recorded) {
    const answers = (answered.get(step) ?? []).sort((a, b) => (a.answeredAt ?? '').localeCompare(b.answeredAt ?? ''));
    list.sort((a, b) => a.order - b.order || a.createdAt.localeCompare(b.createdAt));
    list.forEach((decision, i) => {
      const answer = answers[i];
      if (answer) result.set(decision.id, toAnswer(answer));
    });
  }
  return result;
}

function toAnswer(approval: Approval): ApprovalAnswer {
  return {
    approved: approval.status === 'approved',
    scope: approval.scope,
    tool: approval.tool,
    by: approval.answeredBy,
    from: approval.answeredFrom ?? null,
    at: approval.answeredAt,
    reason: approval.reason,
  };
}

/** What a call's arguments read as: the command of `shell.run` on its own, the rest as key and value. */
export function describeArgs(tool: string | null, args: Record<string, unknown>): { command: string | null; rest: [string, string][] } {
  const command = tool === 'shell.run' && typeof args.command === 'string' ? args.command : null;
  const rest = Object.entries(args)
    .filter(([key]) => !(command !== null && key === 'command'))
    .map(([key, value]): [string, string] => [key, typeof value === 'string' ? value : JSON.stringify(value ?? null)]);
  return { command, rest };
}

/** The path a call works on, for highlighting its diff; shell commands have none. */
export function pathOfCall(args: Record<string, unknown>): string {
  for (const key of ['path', 'to', 'from']) if (typeof args[key] === 'string') return args[key];
  return '';
}
