import { errorText } from '../lib/format';
import { actionState } from './plan-actions';
import type { SliceCreator } from './types';
import type { ForkDialog, CompareView, ForkSlice } from './state/fork';

export const initialForkState = {
  forkDialog: null as ForkDialog | null,
  compareView: null as CompareView | null,
};

export const createForkSlice: SliceCreator<ForkSlice> = (set, get) => ({
  ...initialForkState,

  askFork(atStep) {
    set({ forkDialog: { atStep, forking: false, error: null } });
  },

  cancelFork() {
    if (!get().forkDialog?.forking) set({ forkDialog: null });
  },

  async confirmFork({ profile, model }) {
    const dialog = get().forkDialog;
    const { plan, session } = get();
    if (!dialog || !plan || !session || dialog.forking) return;
    const decided = actionState(get(), 'fork');
    if (!decided.allowed) {
      set({ forkDialog: { ...dialog, error: decided.reason } });
      return;
    }
    set({ forkDialog: { ...dialog, forking: true, error: null } });
    try {
      const trimmed = model?.trim();
      const result = await session.bridge['plans.fork']({ planId: session.planId, atStep: dialog.atStep, ...(profile ? { profile } : {}), ...(trimmed ? { model: trimmed } : {}) });
      set({ forkDialog: null });
      void get().loadPlans();
      get().openPlan(result.plan.id);
      get().announce(`Forked plan ${plan.name} at step ${dialog.atStep}: opened the new plan ${result.plan.id}; press Run to run it from step ${dialog.atStep}`);
    } catch (error) {
      if (get().forkDialog?.atStep === dialog.atStep) set({ forkDialog: { ...dialog, forking: false, error: `Fork failed: ${errorText(error)}` } });
    }
  },

  async openCompare(otherId) {
    const session = get().session;
    if (!session) return;
    set({ compareView: { with: otherId, status: 'loading', data: null, error: null } });
    try {
      const data = await session.bridge['plans.compare']({ planId: session.planId, with: otherId });
      if (get().compareView?.with === otherId && get().session === session) set({ compareView: { with: otherId, status: 'loaded', data, error: null } });
    } catch (error) {
      if (get().compareView?.with === otherId) set({ compareView: { with: otherId, status: 'error', data: null, error: errorText(error) } });
    }
  },

  closeCompare() {
    set({ compareView: null });
  },
});
