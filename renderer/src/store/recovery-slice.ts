import type { BuiltinProfileName } from '../../../shared/profiles';
import type { Plan } from '../../../shared/domain';
import { errorText } from '../lib/format';
import type { PlanSession } from './plan-session';
import { track } from './track';
import type { SliceCreator } from './types';
import { sendAction } from '../lib/action-dispatch';

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
  const recover = (action: ConsoleRecovery, send: (session: PlanSession) => Promise<{ plan: Plan }>, done: (plan: Plan) => string) =>
    track(
      { getState: get, setState: set },
      { busy: 'recovering', error: 'recoveryError' },
      action,
      async (session) => {
        const { plan } = await send(session);
        deps.flushEvents();
        // The host cleared the current error: the failure card goes, the tree shows the recovery.
        set({ plan, planStatus: 'loaded' });
        get().announce(done(plan));
        get().refreshErrors();
        get().refreshDecisions();
      },
      (error) => `${LABELS[action]} failed: ${errorText(error)}`,
    );

  const next = (plan: Plan) => (plan.processingState === 'queued' ? '; press Run to go on' : '');

  return {
    ...initialRecoveryState,
    skipStep: () => recover('skip', ({ bridge, planId }) => sendAction(bridge, planId, 'skip', {}), (plan) => `Step skipped${next(plan)}`),
    changeProfile: (profile) =>
      recover('change_profile', ({ bridge, planId }) => sendAction(bridge, planId, 'set_profile', { profile }), (plan) => `Profile changed to ${plan.automationProfile.name}${next(plan)}`),
  };
};
