import type { PlanModelView } from '../../../shared/agent';
import type { PlanTraceView } from '../../../shared/contract';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import { statusLabel } from '../../../shared/vocabulary';
import { ancestorsOf, flattenTree } from '../lib/decision-tree';
import { errorText } from '../lib/format';
import { ACTIONS, type ActionArgs } from '../../../shared/actions';
import type { ActionId, ActionState } from '../../../shared/action-ids';
import { type PlanAction, sendAction } from '../lib/action-dispatch';
import { isStaleRefusal } from '../lib/stale-refusal';
import { actionState } from './plan-actions';
import { deriveFromHistory, type NextRetry } from './plan-events';
import { PlanSession } from './plan-session';
import { callsOver, initialToolCallsState, talliesOver } from './tool-calls';
import { track } from './track';
import type { LoadStatus } from './state/load-status';
import type { SliceCreator } from './types';
import type { RecoveryHint, PlanSlice } from './state/plan';

/** Decisions in the first request for a plan's tree: enough to fill the view at once. */
export const FIRST_DECISIONS_PAGE = 500;

export const initialPlanState = {
  session: null as PlanSession | null,
  planId: null as string | null,
  plan: null as Plan | null,
  planStatus: 'idle' as LoadStatus,
  planError: null as string | null,
  planModel: null as PlanModelView | null,
  planTrace: null as PlanTraceView | null,
  planActions: null as ActionState[] | null,
  decisions: {} as Record<string, StrategyDecision>,
  decisionsStatus: 'idle' as LoadStatus,
  expanded: {} as Record<string, boolean>,
  selectedDecisionId: null as string | null,
  pausedDecisionId: null as string | null,
  ...initialToolCallsState,
  errors: [] as ErrorRecord[],
  recoveryHints: [] as RecoveryHint[],
  nextRetry: null as NextRetry | null,
  breakpoints: [] as string[],
  pendingAction: null as ActionId | null,
  actionError: null as string | null,
  selectFailedOnLoad: false,
};

export const createPlanSlice: SliceCreator<PlanSlice> = (set, get, deps) => {
  const store = { getState: get, setState: set };

  /**
   * A refresh of the open plan, coalesced per session: `load` asks the host, `apply` takes the
   * answer in (after the buffered events, so they never overwrite it), `fail` words a failure.
   */
  const forOpenPlan =
    <T>(key: string, load: (session: PlanSession) => Promise<T>, apply: (result: T) => void, fail?: (message: string) => void) =>
    () =>
      get().session?.task(key, async (session) => {
        try {
          const result = await load(session);
          deps.flushEvents();
          apply(result);
        } catch (error) {
          fail?.(errorText(error));
        }
      })();

  /** What the history says about the pause and a pending retry: it needs both the history and the plan. */
  const deriveOpenState = () => {
    const derived = deriveFromHistory(get().events, get().plan);
    set({ pausedDecisionId: get().pausedDecisionId ?? derived.pausedDecisionId, nextRetry: get().nextRetry ?? derived.nextRetry });
  };

  const refreshPlan = forOpenPlan(
    'plan',
    ({ bridge, planId }) => bridge['plans.get']({ planId }),
    ({ plan, model, trace, actions }) => {
      set({ plan, planModel: model ?? null, planTrace: trace ?? null, planActions: actions ?? null, planStatus: 'loaded', planError: null });
      get().seedDeclinedHunks();
      const session = get().session;
      if (session?.deriveWhenPlanLoads) {
        session.deriveWhenPlanLoads = false;
        deriveOpenState();
      }
    },
    (message) => {
      if (get().plan === null) set({ planStatus: 'error', planError: message });
    },
  );

  const applyDecisions = (list: readonly StrategyDecision[], complete: boolean) => {
    const known = get().decisions;
    const expanded = { ...get().expanded };
    // New nodes open expanded; a node the operator collapsed stays collapsed.
    for (const d of list) if (!(d.id in known) && !(d.id in expanded)) expanded[d.id] = true;
    const decisions = Object.fromEntries(list.map((d) => [d.id, d]));
    const selected = get().selectedDecisionId;
    set({ decisions, expanded, decisionsStatus: complete ? 'loaded' : 'loading', selectedDecisionId: selected && decisions[selected] ? selected : null });
    if (complete && get().selectFailedOnLoad) {
      set({ selectFailedOnLoad: false });
      get().selectFirstFailure();
    }
  };

  /**
   * The host sends the tree in display order. The first load of a large tree shows its first page
   * (the top of the tree, parents before children) at once and the rest when it has arrived;
   * a refresh replaces the tree in one go.
   */
  const refreshDecisions = () =>
    get().session?.task('decisions', async ({ bridge, planId }) => {
      try {
        const first = await bridge['plans.decisions']({ planId, offset: 0, limit: FIRST_DECISIONS_PAGE });
        const list = [...first.decisions];
        let total = first.total;
        if (list.length < total && get().decisionsStatus !== 'loaded') {
          deps.flushEvents();
          applyDecisions(list, false);
        }
        while (list.length < total) {
          const page = await bridge['plans.decisions']({ planId, offset: list.length, limit: Math.min(100_000, Math.max(1, total - list.length)) });
          if (page.decisions.length === 0) break;
          list.push(...page.decisions);
          total = page.total;
        }
        // Older buffered events go first, so they never overwrite this fresher snapshot.
        deps.flushEvents();
        applyDecisions(list, true);
      } catch (error) {
        if (get().decisionsStatus !== 'loaded') set({ decisionsStatus: 'error', planError: errorText(error) });
      }
    })();

  // Calls that finish while the tallies are asked for are kept in the backlog and counted again over the answer.
  const refreshToolTallies = () =>
    get().session?.task('tallies', async ({ bridge, planId }) => {
      set({ toolTallyBacklog: get().toolTallyBacklog ?? [] });
      try {
        const { tallies, throughSeq } = await bridge['plans.toolTallies']({ planId });
        deps.flushEvents();
        set({ toolTallies: talliesOver(tallies, throughSeq, get().toolTallyBacklog), toolTalliesSeq: throughSeq, toolTallyBacklog: null });
      } catch {
        // The rows show what the events counted; a resync asks again.
        set({ toolTallyBacklog: null });
      }
    })();

  const loadDecisionCalls = async (decisionId: string, again = false) => {
    const session = get().session;
    const known = get().decisionCalls[decisionId];
    if (!session || (known && known.status !== 'error' && !again)) return;
    // While it loads, events already add the calls that finish; the answer goes before them.
    if (!known || known.status === 'error') set({ decisionCalls: { ...get().decisionCalls, [decisionId]: { status: 'loading', invocations: [], startedArgs: null, error: null } } });
    try {
      const { invocations } = await session.bridge['plans.invocationsForDecision']({ planId: session.planId, decisionId });
      deps.flushEvents();
      const pushed = get().decisionCalls[decisionId];
      set({ decisionCalls: { ...get().decisionCalls, [decisionId]: { status: 'loaded', invocations: callsOver(invocations, pushed), startedArgs: pushed?.startedArgs ?? null, error: null } } });
    } catch (error) {
      set({ decisionCalls: { ...get().decisionCalls, [decisionId]: { status: 'error', invocations: [], startedArgs: null, error: errorText(error) } } });
    }
  };

  const refreshToolCalls = () => {
    refreshToolTallies();
    for (const decisionId of Object.keys(get().decisionCalls)) void loadDecisionCalls(decisionId, true);
  };

  const refreshErrors = forOpenPlan(
    'errors',
    ({ bridge, planId }) => bridge['plans.errors']({ planId }),
    ({ errors, recoveryHints }) => set({ errors, recoveryHints }),
  );

  const refreshAll = () => {
    refreshPlan();
    refreshDecisions();
    refreshToolCalls();
    refreshErrors();
    get().refreshChanges();
    get().refreshApprovals();
    // The Checks tab reads them as it opens: a step's acceptance is a criterion, and a plan of
    // thousands of steps would wait on a view nobody looks at.
    if (get().checksView) get().refreshChecks();
    get().refreshCheckpoints();
  };

  return {
    ...initialPlanState,
    tab: 'decisions',

    openPlan(planId, options = {}) {
      if (get().planId === planId) {
        if (options.selectFailure && !get().selectFirstFailure()) set({ selectFailedOnLoad: true });
        return;
      }
      get().session?.close();
      const session = new PlanSession(planId, deps.bridge);
      set({
        ...deps.openPlanState,
        session,
        planId,
        planStatus: 'loading',
        decisionsStatus: 'loading',
        selectFailedOnLoad: options.selectFailure === true,
        planCursorId: planId,
      });
      // The newest events are asked for first, then the snapshots: the host answers in order, so
      // the snapshots are at least as new as the history's last seq, and the subscription from that
      // seq replays whatever happened after it (events replayed onto a newer snapshot end in the
      // same state). One round of snapshots, not one before and one after subscribing: a tree of
      // 10,000 decisions is several MB.
      const history = get().loadEventHistory();
      refreshAll();
      void history.then((lastSeq) => {
        if (get().plan) deriveOpenState();
        else session.deriveWhenPlanLoads = true;
        session.onClose(deps.subscribePlan(planId, lastSeq));
      });
    },

    closePlan() {
      get().session?.close();
      set({ ...deps.openPlanState });
    },

    refreshPlan,
    refreshDecisions,
    refreshToolCalls,
    loadDecisionCalls: (decisionId) => void loadDecisionCalls(decisionId),
    reloadDecisionCalls: (decisionId) => void loadDecisionCalls(decisionId, true),
    refreshErrors,

    // Leaving Changes closes an apply confirmation, so it never waits unseen on another tab.
    setTab: (tab) => set(tab !== 'changes' && get().applyStatus === 'confirming' ? { tab, applyStatus: 'idle' } : { tab }),

    toggleExpanded(decisionId) {
      get().setExpanded(decisionId, !get().expanded[decisionId]);
    },

    setExpanded(decisionId, expanded) {
      if (Boolean(get().expanded[decisionId]) !== expanded) set({ expanded: { ...get().expanded, [decisionId]: expanded } });
    },

    selectDecision(decisionId, options = {}) {
      if (decisionId && options.reveal) {
        const closed = ancestorsOf(get().decisions, decisionId).filter((id) => !get().expanded[id]);
        if (closed.length > 0) set({ expanded: { ...get().expanded, ...Object.fromEntries(closed.map((id) => [id, true])) } });
      }
      set({ selectedDecisionId: decisionId });
    },

    moveDecisionSelection(delta) {
      const rows = flattenTree(get().decisions, get().expanded);
      if (rows.length === 0) return;
      const current = rows.findIndex((r) => r.decision.id === get().selectedDecisionId);
      const next = current < 0 ? (delta > 0 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, current + delta));
      set({ selectedDecisionId: rows[next].decision.id });
    },

    selectFirstFailure() {
      const failed = flattenTree(get().decisions, {}, true).find((r) => r.decision.status === 'failed' && r.decision.type !== 'error_recovery');
      const fallback = get().errors.at(-1)?.decisionId ?? null;
      const id = failed?.decision.id ?? (fallback && get().decisions[fallback] ? fallback : null);
      if (!id) return false;
      get().selectDecision(id, { reveal: true });
      return true;
    },

    async runAction(action, args) {
      const { planId, plan } = get();
      if (!planId || !plan) return;
      const { label } = ACTIONS[action];
      const decided = actionState(get(), action);
      if (!decided.allowed) {
        get().announce(`${label} is not available: ${decided.reason}`);
        return;
      }
      if (action === 'apply') {
        // The confirmation lives on the Changes tab: Apply from any tab goes there and opens it.
        get().setTab('changes');
        await get().applySelected();
        return;
      }
      if (action === 'rewind') {
        // The confirmation lists the files the rewind changes; confirming it sends the rewind.
        const toStep = (args as ActionArgs<'rewind'> | undefined)?.toStep;
        if (toStep) await get().askRewind(toStep);
        return;
      }
      if (action === 'fork') {
        // The confirmation takes the profile and model; confirming it forks and opens the new plan.
        const atStep = (args as ActionArgs<'fork'> | undefined)?.atStep;
        if (atStep) get().askFork(atStep);
        return;
      }
      // Edit-step and replan take a file: the command line's.
      if (ACTIONS[action].channel === undefined) return;
      await track(
        store,
        { busy: 'pendingAction', error: 'actionError', concurrent: true },
        action as ActionId,
        async ({ bridge, planId }) => {
          // No control offers compare or the errors here (their views ask for them); the rest answer the plan.
          const result = await sendAction(bridge, planId, action as PlanAction, (args ?? {}) as never, plan);
          deps.flushEvents();
          set({ plan: result.plan, planStatus: 'loaded' });
          // What the plan allows now is the host's to say.
          refreshPlan();
          if (action === 'retry' || action === 'reset') refreshErrors();
        },
        async (error, { bridge, planId }) => {
          if (!isStaleRefusal(error)) return `${label} failed: ${errorText(error)}`;
          // The view was stale (the plan moved on in another process): say where it really is, and catch up.
          const fresh = await bridge['plans.get']({ planId }).catch(() => null);
          refreshAll();
          if (!fresh) return `${label} failed: ${errorText(error)}`;
          deps.flushEvents();
          set({ plan: fresh.plan, planActions: fresh.actions ?? null, planStatus: 'loaded' });
          return `${label} refused: the plan is ${statusLabel(fresh.plan)} now. The view has been refreshed.`;
        },
      );
    },

    toggleBreakpoint(decisionId) {
      const enabled = !get().breakpoints.includes(decisionId);
      return track(
        store,
        { error: 'actionError' },
        'breakpoint',
        async ({ bridge, planId }) => {
          const { breakpoints } = await bridge['plans.breakpoint']({ planId, decisionId, enabled });
          set({ breakpoints });
          get().announce(enabled ? 'Breakpoint set' : 'Breakpoint removed');
        },
        (error) => `Breakpoint not changed: ${errorText(error)}`,
      );
    },
  };
};
