import type { CheckResult, PlanChecksView } from '../../../shared/checks';
import { errorText } from '../lib/format';
import type { LoadStatus } from './state/load-status';
import type { SliceCreator } from './types';
import type { RunningCheck, ChecksSlice } from './state/checks';

/** The most of a running check's output the page keeps: the whole of it is in the data directory. */
export const LIVE_OUTPUT_LIMIT = 20_000;

export const initialChecksState = {
  checksView: null as PlanChecksView | null,
  checksStatus: 'idle' as LoadStatus,
  checksError: null as string | null,
  runningChecks: [] as RunningCheck[],
};

/** The latest result of each check: a new one replaces the one of the same check (name and step). */
function withResult(view: PlanChecksView, result: CheckResult): PlanChecksView {
  const same = (r: CheckResult) => r.id === result.id || (r.name === result.name && r.decisionId === result.decisionId);
  return { ...view, results: [...view.results.filter((r) => !same(r)), result] };
}

export const createChecksSlice: SliceCreator<ChecksSlice> = (set, get, deps) => ({
  ...initialChecksState,

  refreshChecks: () =>
    get().session?.task('checks', async ({ bridge, planId }) => {
      if (get().checksView === null) set({ checksStatus: 'loading' });
      try {
        const view = await bridge['plans.checks']({ planId });
        deps.flushEvents();
        set({ checksView: view, checksStatus: 'loaded', checksError: null });
        const plan = get().plan;
        // The summary is the plan's too: the header reads it from there.
        if (plan && plan.id === view.planId) set({ plan: { ...plan, checks: view.summary } });
      } catch (error) {
        set({ checksStatus: 'error', checksError: errorText(error) });
      }
    })(),

  ingestCheckEvents(events) {
    let running = get().runningChecks;
    let view = get().checksView;
    let plan = get().plan;
    let reload = false;
    for (const event of events) {
      switch (event.type) {
        case 'check_started': {
          const { resultId, name, run, decisionId, index, total } = event.data;
          // A new pass: what ran before it is done with.
          running = [...(index === 1 ? [] : running.filter((r) => r.resultId !== resultId)), { resultId, name, run, decisionId, index, total, output: '' }];
          break;
        }
        case 'check_output': {
          const { resultId, text } = event.data;
          running = running.map((r) => (r.resultId === resultId ? { ...r, output: (r.output + text).slice(-LIVE_OUTPUT_LIMIT) } : r));
          break;
        }
        case 'check_finished':
          running = running.filter((r) => r.resultId !== event.data.id);
          if (view) view = withResult(view, event.data);
          break;
        case 'checks_complete':
        case 'checks_stale':
          if (event.type === 'checks_complete') running = [];
          if (plan) plan = { ...plan, checks: event.data.summary };
          reload = true;
          break;
        default:
      }
    }
    if (running !== get().runningChecks || view !== get().checksView || plan !== get().plan) set({ runningChecks: running, checksView: view, plan });
    // Only a view the Checks tab loaded is read again; the header's summary came with the event.
    if (reload && get().checksStatus !== 'idle') get().refreshChecks();
  },
});
