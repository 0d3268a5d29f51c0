import type { CheckpointSummary } from '../../../shared/checkpoints';
import { statusLabel } from '../../../shared/vocabulary';
import { sendAction } from '../lib/action-dispatch';
import { errorText, plural } from '../lib/format';
import { isStaleRefusal } from '../lib/stale-refusal';
import { track } from './track';
import type { SliceCreator } from './types';
import type { LoadStatus } from './state/load-status';
import type { RewindDialog, CheckpointsSlice } from './state/checkpoints';
import { actionState } from './plan-actions';

export const initialCheckpointsState = {
  checkpoints: [] as CheckpointSummary[],
  checkpointsStatus: 'idle' as LoadStatus,
  rewindDialog: null as RewindDialog | null,
  rewinding: false,
  rewindError: null as string | null,
};

export const createCheckpointsSlice: SliceCreator<CheckpointsSlice> = (set, get, deps) => {
  const store = { getState: get, setState: set };

  const refreshCheckpoints = () =>
    get().session?.task('checkpoints', async ({ bridge, planId }) => {
      if (get().checkpointsStatus !== 'loaded') set({ checkpointsStatus: 'loading' });
      try {
        const { checkpoints } = await bridge['plans.checkpoints']({ planId });
        deps.flushEvents();
        set({ checkpoints, checkpointsStatus: 'loaded' });
      } catch {
        // The tree shows no checkpoints; the host's rule counts its own.
        if (get().checkpointsStatus !== 'loaded') set({ checkpointsStatus: 'error' });
      }
    })();

  const loadPreview = async (toStep: number) => {
    const session = get().session;
    if (!session) return;
    const kept = get().rewindDialog;
    // Asked again for the same step (the plan moved meanwhile): the list stays until the new one is in.
    set({ rewindDialog: { toStep, preview: kept?.toStep === toStep ? kept.preview : null, loading: true, error: null }, rewindError: null });
    try {
      const preview = await session.bridge['plans.rewindPreview']({ planId: session.planId, toStep });
      if (get().rewindDialog?.toStep === toStep) set({ rewindDialog: { toStep, preview, loading: false, error: null } });
    } catch (error) {
      if (get().rewindDialog?.toStep === toStep) set({ rewindDialog: { toStep, preview: null, loading: false, error: errorText(error) } });
    }
  };

  /** After a rewind to before `toStep`: its later checkpoints are gone, its later entries are history, and the confirmation shown is out of date. */
  const rewound = (toStep: number) => {
    set({ checkpoints: get().checkpoints.filter((c) => c.step <= toStep) });
    refreshCheckpoints();
    // The entries after the checkpoint are listed still, marked rewound; the review leaves them out.
    get().refreshChanges();
    get().refreshDecisions();
    get().refreshErrors();
  };

  return {
    ...initialCheckpointsState,
    refreshCheckpoints,

    ingestCheckpointEvents(events) {
      let list = get().checkpoints;
      let rewoundTo: number | null = null;
      for (const event of events) {
        if (event.type === 'checkpoint_created') {
          const planId = event.planId;
          list = [...list.filter((c) => c.step !== event.data.step), { ...event.data, planId }].sort((a, b) => a.step - b.step);
        } else if (event.type === 'plan_rewound') {
          list = list.filter((c) => c.step <= event.data.toStep);
          rewoundTo = event.data.toStep;
        }
      }
      if (list !== get().checkpoints) set({ checkpoints: list });
      if (rewoundTo !== null) rewound(rewoundTo);
      // What the open confirmation lists was worked out before: ask again.
      const dialog = get().rewindDialog;
      if (dialog && !get().rewinding && events.some((e) => e.type === 'plan_rewound' || e.type === 'checkpoint_created' || e.type === 'change_recorded')) void loadPreview(dialog.toStep);
    },

    async askRewind(toStep) {
      await loadPreview(toStep);
    },

    cancelRewind: () => {
      if (!get().rewinding) set({ rewindDialog: null, rewindError: null });
    },

    confirmRewind() {
      const dialog = get().rewindDialog;
      const plan = get().plan;
      if (!dialog || !plan) return Promise.resolve();
      const decided = actionState(get(), 'rewind');
      if (!decided.allowed) {
        set({ rewindError: decided.reason });
        get().announce(`Rewind is not available: ${decided.reason}`);
        return Promise.resolve();
      }
      const { toStep } = dialog;
      return track(
        store,
        { busy: 'rewinding', error: 'rewindError' },
        true,
        async ({ bridge, planId }) => {
          const result = await sendAction(bridge, planId, 'rewind', { toStep }, plan);
          deps.flushEvents();
          set({ plan: result.plan, planStatus: 'loaded', rewindDialog: null });
          get().refreshPlan();
          rewound(toStep);
          const files = dialog.preview ? `${plural(dialog.preview.files.length, 'file')} put back; ` : '';
          get().announce(`Rewound to before step ${toStep}: ${files}step ${toStep} and the later ones are pending again`);
        },
        async (error, { bridge, planId }) => {
          if (!isStaleRefusal(error)) return `Rewind failed: ${errorText(error)}`;
          // The plan moved on in another process: say where it is, and catch the view up.
          const fresh = await bridge['plans.get']({ planId }).catch(() => null);
          if (!fresh) return `Rewind failed: ${errorText(error)}`;
          deps.flushEvents();
          set({ plan: fresh.plan, planActions: fresh.actions ?? null });
          return `Rewind refused: ${errorText(error)} (the plan is ${statusLabel(fresh.plan)} now)`;
        },
      );
    },
  };
};
