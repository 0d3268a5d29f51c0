import type { PlanListItem } from '../../../shared/contract';
import type { Plan } from '../../../shared/domain';
import { planStatus } from '../../../shared/vocabulary';
import { comparePlansForList } from '../../../shared/plan-order';
import { coalesce } from '../lib/coalesce';
import { errorText } from '../lib/format';
import type { AppState, SliceCreator } from './types';
import type { PlansSlice } from './state/plans';

/** The plans the list shows: filtered, those needing attention first, then newest first. */
export function selectVisiblePlans(state: Pick<AppState, 'plans' | 'stateFilter' | 'search'>): PlanListItem[] {
  const search = state.search.trim().toLowerCase();
  return state.plans
    .filter((p) => (state.stateFilter === 'all' || planStatus(p) === state.stateFilter) && (!search || p.name.toLowerCase().includes(search)))
    .sort(comparePlansForList);
}

export const createPlansSlice: SliceCreator<PlansSlice> = (set, get, deps) => {
  const load = async () => {
    if (get().plansStatus !== 'loaded') set({ plansStatus: 'loading' });
    try {
      const { plans } = await deps.bridge['plans.list']({});
      set({ plans, plansStatus: 'loaded', plansError: null });
      const cursor = get().planCursorId;
      if (cursor === null || !plans.some((p) => p.id === cursor)) {
        set({ planCursorId: get().planId ?? selectVisiblePlans(get())[0]?.id ?? null });
      }
    } catch (error) {
      set({ plansStatus: get().plansStatus === 'loaded' ? 'loaded' : 'error', plansError: errorText(error) });
    }
  };
  const refresh = coalesce(load, { minIntervalMs: 250, setTimeout: deps.setTimeout, now: deps.now });

  async function create(source: string, request: () => Promise<{ plan: Plan | null }>): Promise<string | null> {
    set({ createStatus: { state: 'creating' } });
    try {
      const { plan } = await request();
      if (!plan) {
        set({ createStatus: { state: 'idle' } });
        return null;
      }
      set({ createStatus: { state: 'idle' }, createDraft: null, planCursorId: plan.id });
      get().announce(`Created plan ${plan.name}`);
      await load();
      get().openPlan(plan.id);
      return plan.id;
    } catch (error) {
      const text = errorText(error);
      // Several problems (a plan file's check): each on its own line under the heading.
      const message = `Could not create a plan from ${source}:${text.includes('\n') ? '\n' : ' '}${text}`;
      set({ createStatus: { state: 'error', message } });
      get().announce(message);
      return null;
    }
  }

  return {
    plans: [],
    plansStatus: 'idle',
    plansError: null,
    stateFilter: 'all',
    search: '',
    planCursorId: null,
    createStatus: { state: 'idle' },
    createDraft: null,
    setCreateDraft: (createDraft) => set({ createDraft, createStatus: { state: 'idle' } }),
    checkProject: (request) => deps.bridge['plans.checkProject'](request),
    loadPlans: load,
    refreshPlans: refresh,
    setStateFilter: (stateFilter) => set({ stateFilter }),
    setSearch: (search) => set({ search }),
    setPlanCursor: (planCursorId) => set({ planCursorId }),
    movePlanCursor(delta) {
      const visible = selectVisiblePlans(get());
      if (visible.length === 0) return;
      const current = visible.findIndex((p) => p.id === get().planCursorId);
      const next = current < 0 ? (delta > 0 ? 0 : visible.length - 1) : Math.min(visible.length - 1, Math.max(0, current + delta));
      set({ planCursorId: visible[next].id });
    },
    createPlanFromFile: ({ content, fileName, project }) =>
      create(fileName, () => deps.bridge['plans.create']({ content, fileName, ...(project ? { project } : {}) })),
    createPlanFromDialog: () => create('the chosen file', () => deps.bridge['plans.createFromDialog']({})),
  };
};
