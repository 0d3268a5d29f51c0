import { createStore } from 'zustand/vanilla';
import type { Bridge } from '../../../shared/contract';
import { animationFrames, createFrameBuffer, type FrameScheduler } from '../lib/frame-buffer';
import { createAgentSlice, initialAgentState } from './agent-slice';
import { createAcpAgentsSlice } from './acp-agents-slice';
import { createApprovalsSlice, initialApprovalsState } from './approvals-slice';
import { createChangesSlice, initialChangesState } from './changes-slice';
import { createCheckpointsSlice, initialCheckpointsState } from './checkpoints-slice';
import { createChecksSlice, initialChecksState } from './checks-slice';
import { createForkSlice, initialForkState } from './fork-slice';
import { createEditorSlice } from './editor-slice';
import { createEventsSlice, initialEventsState } from './events-slice';
import { createLiveSlice } from './live-slice';
import { createNavigationSlice } from './navigation-slice';
import { createPlanSlice, initialPlanState } from './plan-slice';
import { LIST_EVENT_TYPES } from './plan-events';
import { createPlansSlice } from './plans-slice';
import { createRecoverySlice, initialRecoveryState } from './recovery-slice';
import type { AppState, AppStore, StoreDeps } from './types';
import type { IngestItem } from './state/live';
import { createUiSlice } from './ui-slice';
import { createTeamSlice } from './team-slice';

export interface AppStoreOptions {
  bridge: Bridge;
  frames?: FrameScheduler;
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  now?: () => number;
}

export interface AppRuntime {
  store: AppStore;
  /** Loads the plan list and subscribes to every plan's events. */
  start(): void;
  /** Reloads what may have been missed while the connection was down. */
  resync(): void;
  dispose(): void;
}

/** The composition root of the renderer's state: one store of slices, fed by a per-frame event buffer. */
export function createAppRuntime(options: AppStoreOptions): AppRuntime {
  const setTimer = options.setTimeout ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
  const clearTimer = options.clearTimeout ?? ((handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  let store: AppStore | null = null;
  const buffer = createFrameBuffer<IngestItem>((items) => store?.getState().ingestEvents(items), options.frames ?? animationFrames, {
    setTimeout: setTimer,
    clearTimeout: clearTimer,
    ms: 250,
  });
  const deps: StoreDeps = {
    bridge: options.bridge,
    flushEvents: () => buffer.flush(),
    subscribePlan: (planId, afterSeq) => options.bridge.subscribe({ planId, afterSeq }, (event) => buffer.push({ scope: 'plan', event })),
    now: options.now ?? Date.now,
    setTimeout: setTimer,
    // What belongs to the open plan, from every slice that holds some: it starts and ends with the plan's session.
    openPlanState: { ...initialPlanState, ...initialEventsState, ...initialChangesState, ...initialApprovalsState, ...initialRecoveryState, ...initialAgentState, ...initialChecksState, ...initialCheckpointsState, ...initialForkState },
  };
  store = createStore<AppState>()((set, get) => ({
    ...createUiSlice(set, get, deps),
    ...createPlansSlice(set, get, deps),
    ...createPlanSlice(set, get, deps),
    ...createEventsSlice(set, get, deps),
    ...createChangesSlice(set, get, deps),
    ...createLiveSlice(set, get, deps),
    ...createNavigationSlice(set, get, deps),
    ...createAgentSlice(set, get, deps),
    ...createAcpAgentsSlice(set, get, deps),
    ...createApprovalsSlice(set, get, deps),
    ...createRecoverySlice(set, get, deps),
    ...createEditorSlice(set, get, deps),
    ...createChecksSlice(set, get, deps),
    ...createCheckpointsSlice(set, get, deps),
    ...createForkSlice(set, get, deps),
    ...createTeamSlice(set, get, deps),
  }));
  const appStore = store;
  let unsubscribeAll: (() => void) | null = null;

  return {
    store: appStore,
    start() {
      void appStore.getState().loadPlans();
      void appStore.getState().loadTeam();
      // The plan list only refreshes on a few event types: a running plan's thousands of others
      // would reach the page twice (here and on the open plan's own subscription).
      unsubscribeAll ??= options.bridge.subscribe({ planId: null, types: [...LIST_EVENT_TYPES] }, (event) => {
        buffer.push({ scope: 'all', event });
        if (event.type === 'state_changed') appStore.getState().teamMayHaveChanged();
      });
    },
    resync() {
      const state = appStore.getState();
      state.refreshPlans();
      void state.loadTeam();
      if (state.planId) {
        state.refreshPlan();
        state.refreshDecisions();
        state.refreshToolCalls();
        state.refreshErrors();
        state.refreshChanges();
        state.refreshApprovals();
        if (state.checksView) state.refreshChecks();
        state.refreshCheckpoints();
      }
    },
    dispose() {
      unsubscribeAll?.();
      unsubscribeAll = null;
      appStore.getState().stopTeam();
      appStore.getState().closePlan();
      buffer.dispose();
    },
  };
}
