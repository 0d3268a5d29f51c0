import type { Approval } from '../../../shared/approvals';
import { ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { EventPublisher } from './event-stream';

/** Where a run that stopped for an approval goes on: the step, and the call's position in it. */
export type ResumeAt = { decisionId: string; callIndex: number };

/** Where approvals are kept; SQLite in the app, so a pending one survives a restart. */
export interface ApprovalStore {
  add(approval: Approval): Promise<void>;
  get(id: string): Promise<Approval | undefined>;
  /** Oldest first. */
  listForPlan(planId: string): Promise<Approval[]>;
  /** Saves an answer (or its use); `args` too where it is the answer (a budget's amount, a question's content). */
  update(id: string, patch: Partial<Pick<Approval, 'status' | 'scope' | 'answeredBy' | 'answeredFrom' | 'answeredAt' | 'reason' | 'usedAt' | 'args' | 'cancelled'>>): Promise<Approval>;
}

/**
 * Refuses a second answer: a status is set only on a pending approval. Checked by the stores under
 * the row's lock, so two consoles (two processes) answering at once record one answer, not two.
 */
export function checkAnswerable(current: Approval, patch: { status?: Approval['status'] }): void {
  if (patch.status !== undefined && current.status !== 'pending') throw new ValidationError('approval', `${current.id} was answered already (${current.status})`);
}

/** The approval the plan waits for, if any. */
export function pendingApproval(approvals: readonly Approval[]): Approval | undefined {
  return approvals.find((a) => a.status === 'pending');
}

/** Tools whose every call the operator approved for the rest of the plan. */
export function toolsApprovedForPlan(approvals: readonly Approval[]): Set<string> {
  return new Set(approvals.filter((a) => a.status === 'approved' && a.scope === 'all' && a.tool).map((a) => a.tool as string));
}

/** What a new request names; the answer's fields start empty. */
export type ApprovalRequest = Pick<Approval, 'planId' | 'kind' | 'decisionId' | 'callIndex' | 'tool' | 'args' | 'description' | 'rationale' | 'diff' | 'hunks' | 'commandRule' | 'mcp' | 'elicitation' | 'invocationId' | 'expiresAt'>;

/** Stores a pending approval and announces it: the one way a run asks the operator. */
export async function requestApproval(store: ApprovalStore, events: EventPublisher, request: ApprovalRequest): Promise<Approval> {
  const approval: Approval = {
    ...request,
    id: newId(),
    status: 'pending',
    scope: null,
    answeredBy: null,
    answeredAt: null,
    reason: null,
    usedAt: null,
    createdAt: new Date().toISOString(),
  };
  await store.add(approval);
  await events.publish(approval.planId, 'approval_requested', {
    approvalId: approval.id,
    kind: approval.kind,
    decisionId: approval.decisionId,
    tool: approval.tool,
    ...(approval.kind === 'tool' ? { args: approval.args } : {}),
    description: approval.description,
  });
  return approval;
}
