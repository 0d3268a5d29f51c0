import type { PlanListItem, RequestOf, ResponseOf } from '../../../../shared/contract';
import type { PlanStatus } from '../../../../shared/vocabulary';
import type { LoadStatus } from './load-status';

/** A status in the operator's words (shared/vocabulary), or every plan. */
export type StateFilter = PlanStatus | 'all';

export interface PlansSlice {
  plans: PlanListItem[];
  plansStatus: LoadStatus;
  plansError: string | null;
  stateFilter: StateFilter;
  search: string;
  /** The row j/k moves to; Enter opens it. */
  planCursorId: string | null;
  createStatus: { state: 'idle' | 'creating' } | { state: 'error'; message: string };
  loadPlans(): Promise<void>;
  /** A coalesced, rate-limited reload, for bursts of events. */
  refreshPlans(): void;
  setStateFilter(filter: StateFilter): void;
  setSearch(search: string): void;
  setPlanCursor(planId: string | null): void;
  movePlanCursor(delta: number): void;
  /** A plan file picked in the browser, waiting in the Create plan form for its project folder. */
  createDraft: { content: string; fileName: string } | null;
  setCreateDraft(draft: { content: string; fileName: string } | null): void;
  /** Where a project folder resolves on the host, or the problem with the path it tried. */
  checkProject(request: RequestOf<'plans.checkProject'>): Promise<ResponseOf<'plans.checkProject'>>;
  createPlanFromFile(file: { content: string; fileName: string; project?: string }): Promise<string | null>;
  /** The desktop app's native file dialog; resolves to null when the operator cancels. */
  createPlanFromDialog(): Promise<string | null>;
}
