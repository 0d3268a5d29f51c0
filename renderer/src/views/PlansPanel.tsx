import { useCallback } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { PLAN_STATUSES, STATUS_LABELS } from '../../../shared/vocabulary';
import { StatePanel } from '../components/StatePanel';
import { useNow } from '../components/use-now';
import { VirtualList } from '../components/VirtualList';
import { selectVisiblePlans } from '../store/plans-slice';
import type { StateFilter } from '../store/state/plans';
import { useAppStore } from '../store/react';
import { CreatePlanButton } from './CreatePlanButton';
import { PLAN_ROW_HEIGHT, PlanRow, planOptionId } from './PlanRow';

function PlansToolbar({ nativeFileDialog }: { nativeFileDialog: boolean }) {
  const search = useAppStore((s) => s.search);
  const setSearch = useAppStore((s) => s.setSearch);
  const filter = useAppStore((s) => s.stateFilter);
  const setFilter = useAppStore((s) => s.setStateFilter);
  const createStatus = useAppStore((s) => s.createStatus);
  // While the Create plan form is open, it shows the error itself.
  const drafting = useAppStore((s) => s.createDraft !== null);
  return (
    <div className="plans-toolbar">
      <div className="toolbar-row">
        <h2 className="panel-title">Plans</h2>
        <CreatePlanButton nativeFileDialog={nativeFileDialog} />
      </div>
      <div className="toolbar-row">
        <input
          type="search"
          className="input grow"
          placeholder="Search by name"
          aria-label="Search plans by name"
          data-testid="plan-search"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
        <select className="input" aria-label="Filter plans by state" data-testid="plan-state-filter" value={filter} onChange={(e) => setFilter(e.currentTarget.value as StateFilter)}>
          <option value="all">All plans</option>
          {PLAN_STATUSES.map((status) => (
            <option key={status} value={status}>
              {STATUS_LABELS[status]}
            </option>
          ))}
        </select>
      </div>
      {createStatus.state === 'error' && !drafting && (
        <p className="inline-error" role="alert" data-testid="create-plan-error">
          {createStatus.message}
        </p>
      )}
    </div>
  );
}

function PlanList() {
  const plans = useAppStore(useShallow(selectVisiblePlans));
  const total = useAppStore((s) => s.plans.length);
  const status = useAppStore((s) => s.plansStatus);
  const error = useAppStore((s) => s.plansError);
  const openId = useAppStore((s) => s.planId);
  // The open plan's own stream is fresher than the (rate-limited) list: show its state from there.
  const live = useAppStore(useShallow((s) => (s.plan ? { state: s.plan.processingState, phase: s.plan.phase } : null)));
  const cursorId = useAppStore((s) => s.planCursorId);
  const openPlan = useAppStore((s) => s.openPlan);
  const loadPlans = useAppStore((s) => s.loadPlans);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);
  const now = useNow(30_000);
  const onOpen = useCallback((id: string) => openPlan(id), [openPlan]);

  if (status === 'idle' || status === 'loading') return <StatePanel kind="loading" title="Loading plans…" />;
  if (status === 'error')
    return (
      <StatePanel kind="error" title={`Couldn't load the plans: ${error ?? 'unknown error'}`}>
        <button type="button" className="button" onClick={() => void loadPlans()}>
          Try again
        </button>
      </StatePanel>
    );
  if (total === 0) return <StatePanel kind="empty" testId="plans-empty" title="No plans yet — create one from a plan file." />;
  if (plans.length === 0) return <StatePanel kind="empty" testId="plans-empty-filter" title="No plan matches this filter." />;

  const cursorIndex = plans.findIndex((p) => p.id === cursorId);
  return (
    <VirtualList
      count={plans.length}
      rowHeight={PLAN_ROW_HEIGHT}
      scrollToIndex={cursorIndex}
      renderRow={(i) => {
        const plan = plans[i];
        const open = plan.id === openId;
        const shown = open && live ? { ...plan, processingState: live.state, phase: live.phase } : plan;
        return <PlanRow key={plan.id} plan={shown} open={open} cursor={plan.id === cursorId} now={now} onOpen={onOpen} />;
      }}
      className="plan-list"
      containerProps={{
        role: 'listbox',
        tabIndex: 0,
        'aria-label': 'Plans',
        'aria-activedescendant': cursorIndex >= 0 ? planOptionId(plans[cursorIndex].id) : undefined,
        'data-testid': 'plan-list',
        'data-count': plans.length,
        'data-region': 'plans',
        onFocus: () => setFocusRegion('plans'),
      }}
    />
  );
}

export function PlansPanel({ nativeFileDialog = false }: { nativeFileDialog?: boolean }) {
  return (
    <div className="plans-panel">
      <PlansToolbar nativeFileDialog={nativeFileDialog} />
      <PlanList />
    </div>
  );
}
