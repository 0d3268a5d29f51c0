import type { StoreApi } from 'zustand/vanilla';
import type { Bridge } from '../../../shared/contract';
import type { AgentSlice } from './state/agent';
import type { AcpAgentsSlice } from './state/acp-agents';
import type { ApprovalsSlice } from './state/approvals';
import type { ChangesSlice } from './state/changes';
import type { CheckpointsSlice } from './state/checkpoints';
import type { ForkSlice } from './state/fork';
import type { ChecksSlice } from './state/checks';
import type { EditorSlice } from './state/editor';
import type { EventsSlice } from './state/events';
import type { LiveSlice } from './state/live';
import type { NavigationSlice } from './state/navigation';
import type { PlanSlice } from './state/plan';
import type { PlansSlice } from './state/plans';
import type { RecoverySlice } from './state/recovery';
import type { UiSlice } from './state/ui';
import type { TeamSlice } from './state/team';

export type AppState = PlansSlice & PlanSlice & EventsSlice & ChangesSlice & UiSlice & LiveSlice & NavigationSlice & ApprovalsSlice & RecoverySlice & AgentSlice & AcpAgentsSlice & EditorSlice & ChecksSlice & CheckpointsSlice & ForkSlice & TeamSlice;
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
