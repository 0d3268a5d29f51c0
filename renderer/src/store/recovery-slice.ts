import type { Plan } from '../../../shared/domain';
import { errorText } from '../lib/format';
import type { PlanSession } from './plan-session';
import { track } from './track';
import type { SliceCreator } from './types';
import { sendAction } from '../lib/action-dispatch';
import type { ConsoleRecovery, RecoverySlice } from './state/recovery';

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
        get().refreshPlan();
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
