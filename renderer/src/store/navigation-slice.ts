import { flattenTree } from '../lib/decision-tree';
import { selectVisiblePlans } from './plans-slice';
import type { SliceCreator } from './types';
import type { NavigationSlice } from './state/navigation';

export const createNavigationSlice: SliceCreator<NavigationSlice> = (set, get) => ({
  jumpToNextFailure() {
    const state = get();
    const failed = state.planId
      ? flattenTree(state.decisions, {}, true)
          .filter((r) => r.decision.status === 'failed' && r.decision.type !== 'error_recovery')
          .map((r) => r.decision.id)
      : [];
    const at = state.selectedDecisionId ? failed.indexOf(state.selectedDecisionId) : -1;
    const showTree = () => set({ tab: 'decisions', focusRegion: 'tree' });

    if (failed.length > 0 && at < failed.length - 1) {
      state.selectDecision(failed[at + 1], { reveal: true });
      showTree();
      state.announce(`Failed step: ${state.decisions[failed[at + 1]].description}`);
      return;
    }
    const errored = selectVisiblePlans({ plans: state.plans, stateFilter: 'all', search: '' }).filter((p) => p.processingState === 'errored');
    const others = errored.filter((p) => p.id !== state.planId);
    if (others.length === 0) {
      if (failed.length > 0) {
        state.selectDecision(failed[0], { reveal: true });
        showTree();
      } else if (state.plan?.processingState === 'errored') {
        state.selectFirstFailure();
        showTree();
      } else state.announce('No failures');
      return;
    }
    const current = errored.findIndex((p) => p.id === state.planId);
    const next = current < 0 ? others[0] : errored[(current + 1) % errored.length];
    state.openPlan(next.id, { selectFailure: true });
    showTree();
    state.announce(`Failed plan: ${next.name}`);
  },
});
