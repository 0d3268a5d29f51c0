import { mergeEvents } from './merge-events';
import { LIST_EVENT_TYPES, reducePlanEvents } from './plan-events';
import { foldToolCalls } from './tool-calls';
import type { SliceCreator } from './types';
import type { LiveSlice } from './state/live';

export const createLiveSlice: SliceCreator<LiveSlice> = (set, get) => ({
  ingestEvents(items) {
    const state = get();
    const planId = state.planId;
    const planEvents = items.filter((i) => i.scope === 'plan' && i.event.planId === planId).map((i) => i.event);
    if (planId && planEvents.length > 0) {
      const merged = mergeEvents(state.events, state.lastSeq, planEvents);
      const reduced = reducePlanEvents(state, merged.appended);
      const calls = foldToolCalls(state, planId, merged.appended);
      set({
        events: merged.events,
        lastSeq: merged.lastSeq,
        plan: reduced.plan,
        decisions: reduced.decisions,
        pausedDecisionId: reduced.pausedDecisionId,
        nextRetry: reduced.nextRetry,
        ...calls.changes,
      });
      get().ingestCheckEvents(merged.appended);
      get().ingestCheckpointEvents(merged.appended);
      if (reduced.changes.length > 0 || reduced.changesetId) get().appendChanges(reduced.changes, reduced.changesetId);
      for (const decisionId of calls.reload) get().reloadDecisionCalls(decisionId);
      if (merged.gap) {
        void get().backfillEvents(merged.gap.after, merged.gap.before);
        // Events were missed, a change or a call among them: the only time these are read again.
        get().refreshChanges();
        get().refreshToolCalls();
      }
      const next = get();
      for (const followUp of reduced.followUps) {
        if (followUp === 'plan') next.refreshPlan();
        else if (followUp === 'decisions') next.refreshDecisions();
        else if (followUp === 'errors') next.refreshErrors();
        else if (followUp === 'approvals') next.refreshApprovals();
        else next.refreshReview();
      }
      const message = reduced.messages.at(-1);
      if (message) next.announce(message);
    }
    if (items.some((i) => i.scope === 'all' && LIST_EVENT_TYPES.has(i.event.type))) get().refreshPlans();
  },
});
