import type { PlanCompare } from '../../../shared/plan-compare';
import type { BuiltinProfileName } from '../../../shared/profiles';
import { errorText } from '../lib/format';
import { verdict } from '../lib/plan-facts';
import { consoleKnowledge } from './checkpoints-slice';
import type { SliceCreator } from './types';

/** The fork confirmation: the step it goes on from, and what the operator changes from there. */
export interface ForkDialog {
  atStep: number;
  forking: boolean;
  /** Why the fork was refused (the host's one line, or the rule's reason). */
  error: string | null;
}

/** Two runs side by side: the open plan (a) and the one it is compared with (b). */
export interface CompareView {
  with: string;
  status: 'loading' | 'loaded' | 'error';
  data: PlanCompare | null;
  error: string | null;
}

/** Fork and compare in the console (README.md, "Fork and compare"). */
export interface ForkSlice {
  forkDialog: ForkDialog | null;
  compareView: CompareView | null;
  /** Opens the fork confirmation for step `atStep`. */
  askFork(atStep: number): void;
  cancelFork(): void;
  /** Forks with the profile and model chosen (empty: the origin's), then opens the new plan; it is not run. */
  confirmFork(options: { profile?: BuiltinProfileName; model?: string }): Promise<void>;
  /** Sets the open plan beside `otherId`: what each changed and what each run took. */
  openCompare(otherId: string): Promise<void>;
  closeCompare(): void;
}

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
    const decided = verdict('fork', plan, consoleKnowledge(get()));
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
