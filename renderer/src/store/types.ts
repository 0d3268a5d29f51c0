import type { StoreApi } from 'zustand/vanilla';
import type { Bridge } from '../../../shared/contract';
import type { StreamEvent } from '../../../shared/events';
import type { AgentSlice } from './agent-slice';
import type { ApprovalsSlice } from './approvals-slice';
import type { ChangesSlice } from './changes-slice';
import type { CheckpointsSlice } from './checkpoints-slice';
import type { ForkSlice } from './fork-slice';
import type { ChecksSlice } from './checks-slice';
import type { EditorSlice } from './editor-slice';
import type { EventsSlice } from './events-slice';
import type { LiveSlice } from './live-slice';
import type { NavigationSlice } from './navigation-slice';
import type { PlanSlice } from './plan-slice';
import type { PlansSlice } from './plans-slice';
import type { RecoverySlice } from './recovery-slice';
import type { UiSlice } from './ui-slice';
import type { TeamSlice } from './team-slice';

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'error';

/** An event as it waits in the per-frame buffer: from the open plan's subscription, or the all-plans one. */
export interface IngestItem {
  scope: 'plan' | 'all';
  event: StreamEvent;
}

export type AppState = PlansSlice & PlanSlice & EventsSlice & ChangesSlice & UiSlice & LiveSlice & NavigationSlice & ApprovalsSlice & RecoverySlice & AgentSlice & EditorSlice & ChecksSlice & CheckpointsSlice & ForkSlice & TeamSlice;
export type AppStore = StoreApi<AppState>;

/** What the slices need from outside: the bridge and the event buffer. */
export interface StoreDeps {
  bridge: Bridge;
  /** Applies buffered events now; called before a fetched snapshot replaces state, so it is never overwritten by older events. */
  flushEvents(): void;
  /** Subscribes to one plan's events after `afterSeq`, feeding the per-frame buffer. */
  subscribePlan(planId: string, afterSeq: number): () => void;
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  /** The state of an open plan, as it starts: every slice's part, set in one go when a plan is opened or closed. */
  openPlanState: Partial<AppState>;
}

export type SliceCreator<T> = (set: AppStore['setState'], get: AppStore['getState'], deps: StoreDeps) => T;
