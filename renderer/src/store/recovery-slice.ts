import type { BuiltinProfileName, Plan } from '../../../shared/domain';
import { errorText } from '../lib/format';
import type { SliceCreator } from './types';

/** The in-place recoveries the console offers; edit-step and replan take a file, so they stay on the command line. */
export type ConsoleRecovery = 'skip' | 'change_profile';

export interface RecoverySlice {
  recovering: ConsoleRecovery | null;
  recoveryError: string | null;
  /** Marks the failed step skipped; the plan is queued to go on with the next step. */
  skipStep(): Promise<void>;
  /** Switches the plan to a built-in profile; the plan is queued to go on. */
  changeProfile(profile: BuiltinProfileName): Promise<void>;
}

export const initialRecoveryState = {
  recovering: null as ConsoleRecovery | null,
  recoveryError: null as string | null,
};

const LABELS: Record<ConsoleRecovery, string> = { skip: 'Skip step', change_profile: 'Change profile' };

export const createRecoverySlice: SliceCreator<RecoverySlice> = (set, get, deps) => {
  const { bridge } = deps;

  const recover = async (action: ConsoleRecovery, send: (planId: string) => Promise<{ plan: Plan }>, done: (plan: Plan) => string) => {
    const { planId, recovering } = get();
    if (!planId || recovering) return;
    set({ recovering: action, recoveryError: null });
    try {
      const { plan } = await send(planId);
      if (get().planId !== planId) return;
      deps.flushEvents();
      // The host cleared the current error: the failure card goes, the tree shows the recovery.
      set({ plan, planStatus: 'loaded' });
      get().announce(done(plan));
      get().refreshErrors();
      get().refreshDecisions();
    } catch (error) {
      const message = `${LABELS[action]} failed: ${errorText(error)}`;
      if (get().planId === planId) set({ recoveryError: message });
      get().announce(message);
    } finally {
      if (get().recovering === action) set({ recovering: null });
    }
  };

  const next = (plan: Plan) => (plan.processingState === 'queued' ? '; press Run to go on' : '');

  return {
    ...initialRecoveryState,
    skipStep: () => recover('skip', (planId) => bridge['plans.skip']({ planId }), (plan) => `Step skipped${next(plan)}`),
    changeProfile: (profile) =>
      recover('change_profile', (planId) => bridge['plans.setProfile']({ planId, profile }), (plan) => `Profile changed to ${plan.automationProfile.name}${next(plan)}`),
  };
};
