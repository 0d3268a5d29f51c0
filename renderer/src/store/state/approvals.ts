import type { Approval } from '../../../../shared/approvals';
import type { LoadStatus } from './load-status';

export type ApprovalChoice = 'approve' | 'approve_all' | 'reject' | 'cancel';

export interface ApprovalsSlice {
  /** The call the open plan waits for, if any. */
  pendingApproval: Approval | null;
  /** Every approval of the open plan, oldest first: the tree shows who answered from these. */
  approvals: Approval[];
  approvalsStatus: LoadStatus;
  /** The answer on its way to the host. */
  answering: ApprovalChoice | null;
  approvalError: string | null;
  /** Bumped by the reject shortcut; the approval card then focuses its reason field. */
  rejectFocusRequest: number;
  refreshApprovals(): void;
  /**
   * Approves the waiting call; with `all`, every later call of its tool. A step out of budget gets
   * `more` turns or output tokens (default: what it asked for); a server's question gets `input`. The run goes on at once.
   */
  approve(all: boolean, more?: number, input?: Record<string, unknown>): Promise<void>;
  /** Rejects the waiting call: the run goes on and the step fails with category `rejected`. */
  reject(reason: string): Promise<void>;
  /** Cancels the server's question the plan waits for (the reason typed, if any): the server hears cancel (not decline) and the call goes on. */
  cancelQuestion(reason: string): Promise<void>;
  requestRejectFocus(): void;
}
