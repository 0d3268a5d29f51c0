import type { Approval } from '../../../shared/approvals';
import type { Plan } from '../../../shared/domain';
import { BUDGET_LIMITS, BudgetAskSchema, usd } from '../../../shared/agent';
import { errorText } from '../lib/format';
import type { PlanSession } from './plan-session';
import { track } from './track';
import type { LoadStatus } from './state/load-status';
import type { SliceCreator } from './types';
import { sendAction } from '../lib/action-dispatch';
import type { ApprovalChoice, ApprovalsSlice } from './state/approvals';

const CHOICE_LABELS: Record<ApprovalChoice, string> = { approve: 'Approve', approve_all: 'Approve all', reject: 'Reject', cancel: 'Cancel' };

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
  const store = { getState: get, setState: set };

  const refreshApprovals = () =>
    get().session?.task('approvals', async ({ bridge, planId }) => {
      if (get().approvalsStatus === 'idle') set({ approvalsStatus: 'loading' });
      try {
        const { pending, approvals } = await bridge['plans.approvals']({ planId });
        const asked = pending !== null && pending.id !== get().pendingApproval?.id;
        set({ pendingApproval: pending, approvals, approvalsStatus: 'loaded' });
        // The state change only says "paused"; a screen reader hears what the plan waits for.
        if (asked) get().announce(pending.kind === 'budget' || pending.kind === 'input' || pending.kind === 'signin' ? pending.rationale : `${pending.tool ?? 'The plan'} waits for your approval: ${pending.description}`);
      } catch (error) {
        if (get().approvalsStatus !== 'loaded') set({ approvalsStatus: 'error', approvalError: errorText(error) });
      }
    })();

  const answer = (choice: ApprovalChoice, send: (session: PlanSession) => Promise<{ plan: Plan }>, done: string) => {
    if (!get().pendingApproval) return Promise.resolve();
    return track(
      store,
      { busy: 'answering', error: 'approvalError' },
      choice,
      async (session) => {
        const { plan } = await send(session);
        deps.flushEvents();
        // The host has the answer: the card goes at once, the run's events bring the rest.
        set({ plan, planStatus: 'loaded', pendingApproval: null });
        get().refreshPlan();
        get().announce(done);
        refreshApprovals();
      },
      (error) => {
        refreshApprovals();
        return `${CHOICE_LABELS[choice]} failed: ${errorText(error)}`;
      },
    );
  };

  return {
    ...initialApprovalsState,
    rejectFocusRequest: 0,
    refreshApprovals,
    approve(all, more, input) {
      const pending = get().pendingApproval;
      if (pending?.kind === 'input') {
        const server = pending.elicitation?.server ?? 'the server';
        return answer('approve', ({ bridge, planId }) => sendAction(bridge, planId, 'approve', { input: input ?? {} }), `Answered the question of ${server}`);
      }
      if (pending?.kind === 'budget') {
        const ask = BudgetAskSchema.parse(pending.args);
        const amount = more ?? ask.more;
        const done = ask.limit === 'costUsd' ? `Gave the plan ${usd(amount)} more` : `Gave the step ${amount} more ${BUDGET_LIMITS[ask.limit].unit}`;
        return answer('approve', ({ bridge, planId }) => sendAction(bridge, planId, 'approve', { more: { [ask.limit]: amount } }), done);
      }
      // Approving a sign-in opens the browser at the server's sign-in page; the plan goes on once signed in.
      if (pending?.kind === 'signin') return answer('approve', ({ bridge, planId }) => sendAction(bridge, planId, 'approve', { all: false }), `Signed in to ${pending.tool ?? 'the server'}`);
      const tool = pending?.tool ?? 'the call';
      return answer(all ? 'approve_all' : 'approve', ({ bridge, planId }) => sendAction(bridge, planId, 'approve', { all }), all ? `Approved every ${tool} call` : `Approved ${tool}`);
    },
    reject(reason) {
      const trimmed = reason.trim();
      if (!trimmed) {
        set({ approvalError: 'Say why the call is rejected.' });
        return Promise.resolve();
      }
      const tool = get().pendingApproval?.tool ?? 'the call';
      return answer('reject', ({ bridge, planId }) => sendAction(bridge, planId, 'reject', { reason: trimmed }), `Rejected ${tool}`);
    },
    cancelQuestion(reason) {
      const server = get().pendingApproval?.elicitation?.server ?? 'the server';
      return answer('cancel', ({ bridge, planId }) => sendAction(bridge, planId, 'reject', { cancel: true, reason: reason.trim() || 'cancelled in the console' }), `Cancelled the question of ${server}`);
    },
    requestRejectFocus: () => set({ rejectFocusRequest: get().rejectFocusRequest + 1 }),
  };
};
