import type { Approval, Plan } from '../../../shared/domain';
import { coalesce } from '../lib/coalesce';
import { errorText } from '../lib/format';
import type { LoadStatus, SliceCreator } from './types';

export type ApprovalChoice = 'approve' | 'approve_all' | 'reject';

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
  /** Approves the waiting call; with `all`, every later call of its tool. The run goes on at once. */
  approve(all: boolean): Promise<void>;
  /** Rejects the waiting call: the run goes on and the step fails with category `rejected`. */
  reject(reason: string): Promise<void>;
  requestRejectFocus(): void;
}

const CHOICE_LABELS: Record<ApprovalChoice, string> = { approve: 'Approve', approve_all: 'Approve all', reject: 'Reject' };

export const initialApprovalsState = {
  pendingApproval: null as Approval | null,
  approvals: [] as Approval[],
  approvalsStatus: 'idle' as LoadStatus,
  answering: null as ApprovalChoice | null,
  approvalError: null as string | null,
};

/** Whether the plan stopped for the operator's answer to a call. */
export function waitsForApproval(plan: Pick<Plan, 'processingState' | 'waitingFor'> | null): boolean {
  return plan?.processingState === 'paused' && plan.waitingFor === 'approval';
}

export const createApprovalsSlice: SliceCreator<ApprovalsSlice> = (set, get, deps) => {
  const { bridge } = deps;

  const refreshApprovals = coalesce(async () => {
    const planId = get().planId;
    if (!planId) return;
    if (get().approvalsStatus === 'idle') set({ approvalsStatus: 'loading' });
    try {
      const { pending, approvals } = await bridge['plans.approvals']({ planId });
      if (get().planId !== planId) return;
      const asked = pending !== null && pending.id !== get().pendingApproval?.id;
      set({ pendingApproval: pending, approvals, approvalsStatus: 'loaded' });
      // The state change only says "paused"; a screen reader hears what the plan waits for.
      if (asked) get().announce(`${pending.tool ?? 'The plan'} waits for your approval: ${pending.description}`);
    } catch (error) {
      if (get().planId === planId && get().approvalsStatus !== 'loaded') set({ approvalsStatus: 'error', approvalError: errorText(error) });
    }
  });

  const answer = async (choice: ApprovalChoice, send: (planId: string) => Promise<{ plan: Plan }>, done: string) => {
    const { planId, pendingApproval, answering } = get();
    if (!planId || !pendingApproval || answering) return;
    set({ answering: choice, approvalError: null });
    try {
      const { plan } = await send(planId);
      if (get().planId !== planId) return;
      deps.flushEvents();
      // The host has the answer: the card goes at once, the run's events bring the rest.
      set({ plan, planStatus: 'loaded', pendingApproval: null });
      get().announce(done);
      refreshApprovals();
    } catch (error) {
      const message = `${CHOICE_LABELS[choice]} failed: ${errorText(error)}`;
      if (get().planId === planId) set({ approvalError: message });
      get().announce(message);
      refreshApprovals();
    } finally {
      if (get().answering === choice) set({ answering: null });
    }
  };

  return {
    ...initialApprovalsState,
    rejectFocusRequest: 0,
    refreshApprovals,
    approve(all) {
      const tool = get().pendingApproval?.tool ?? 'the call';
      return answer(all ? 'approve_all' : 'approve', (planId) => bridge['plans.approve']({ planId, all }), all ? `Approved every ${tool} call` : `Approved ${tool}`);
    },
    reject(reason) {
      const trimmed = reason.trim();
      if (!trimmed) {
        set({ approvalError: 'Say why the call is rejected.' });
        return Promise.resolve();
      }
      const tool = get().pendingApproval?.tool ?? 'the call';
      return answer('reject', (planId) => bridge['plans.reject']({ planId, reason: trimmed }), `Rejected ${tool}`);
    },
    requestRejectFocus: () => set({ rejectFocusRequest: get().rejectFocusRequest + 1 }),
  };
};
