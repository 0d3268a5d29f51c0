import type { Approval } from '../../shared/domain';

/** Where approvals are kept; SQLite in the app, so a pending one survives a restart. */
export interface ApprovalStore {
  add(approval: Approval): void;
  get(id: string): Approval | undefined;
  /** Oldest first. */
  listForPlan(planId: string): Approval[];
  /** Saves an answer (or its use); the id and the request itself never change. */
  update(id: string, patch: Partial<Pick<Approval, 'status' | 'scope' | 'answeredBy' | 'answeredAt' | 'reason' | 'usedAt'>>): Approval;
}

/** The approval the plan waits for, if any. */
export function pendingApproval(approvals: readonly Approval[]): Approval | undefined {
  return approvals.find((a) => a.status === 'pending');
}

/** Tools whose every call the operator approved for the rest of the plan. */
export function toolsApprovedForPlan(approvals: readonly Approval[]): Set<string> {
  return new Set(approvals.filter((a) => a.status === 'approved' && a.scope === 'all' && a.tool).map((a) => a.tool as string));
}
