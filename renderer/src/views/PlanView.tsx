import { type ComponentType, type KeyboardEvent, useMemo } from 'react';
import { StatePanel } from '../components/StatePanel';
import { type PlanTab, visibleTabs } from '../lib/plan-tabs';
import { useAppStore } from '../store/react';
import { ChangesetView } from './ChangesetView';
import { DecisionDetails } from './DecisionDetails';
import { DecisionTree } from './DecisionTree';
import { EventLog } from './EventLog';
import { ApprovalCard } from './ApprovalCard';
import { FailureCard } from './FailureCard';
import { ModelOutput } from './ModelOutput';
import { PlanHeader } from './PlanHeader';
import { ChecksPanel } from './ChecksPanel';
import { RewindDialog } from './RewindDialog';
import { ForkDialog } from './ForkDialog';
import { CompareView } from './CompareView';

/** The open plan's tabs now (lib/plan-tabs.ts): Checks only where it has checks. */
function usePlanTabs() {
  const plan = useAppStore((s) => s.plan);
  const decisions = useAppStore((s) => s.decisions);
  return useMemo(() => visibleTabs({ plan, decisions }), [plan, decisions]);
}

function Tabs() {
  const tabs = usePlanTabs();
  const tab = useAppStore((s) => s.tab);
  const setTab = useAppStore((s) => s.setTab);
  const changes = useAppStore((s) => s.reviewFiles.length);
  // Seqs run 1, 2, ... per plan: the last one is how many events the plan has, loaded or not.
  const events = useAppStore((s) => s.lastSeq);
  const counts: Partial<Record<PlanTab, number>> = { changes, events };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const at = tabs.findIndex((t) => t.id === tab);
    const next = tabs[(at + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
    setTab(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
    e.preventDefault();
  };

  return (
    <div className="tabs" role="tablist" aria-label="Plan views" onKeyDown={onKeyDown}>
      {tabs.map((t) => (
        <button
          key={t.id}
          id={`tab-${t.id}`}
          type="button"
          role="tab"
          aria-selected={tab === t.id}
          aria-controls={`panel-${t.id}`}
          tabIndex={tab === t.id ? 0 : -1}
          className={`tab ${tab === t.id ? 'active' : ''}`}
          data-testid={`tab-${t.id}`}
          onClick={() => setTab(t.id)}
        >
          {t.label}
          {counts[t.id] !== undefined && (
            <>
              {/* Read as "Changes, 4": the comma is heard, not seen. */}
              <span className="tab-sep">,</span> <span className="tab-count">{counts[t.id]}</span>
            </>
          )}
        </button>
      ))}
    </div>
  );
}

function DecisionsTab() {
  return (
    <div className="decisions-split">
      <DecisionTree />
      <DecisionDetails />
    </div>
  );
}

function ChecksTab() {
  const plan = useAppStore((s) => s.plan);
  return plan && <ChecksPanel plan={plan} />;
}

/** Each tab's view: a tab of lib/plan-tabs.ts without one here does not compile. */
const TAB_VIEWS = { decisions: DecisionsTab, changes: ChangesetView, events: EventLog, checks: ChecksTab } satisfies Record<PlanTab, ComponentType>;

function TabPanel() {
  const tab = useAppStore((s) => s.tab);
  const View = TAB_VIEWS[tab];
  return (
    <div id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`} className={`tab-panel panel-${tab}`} data-testid={`panel-${tab}`}>
      <View />
    </div>
  );
}

export function PlanView() {
  const planId = useAppStore((s) => s.planId);
  const plan = useAppStore((s) => s.plan);
  const status = useAppStore((s) => s.planStatus);
  const error = useAppStore((s) => s.planError);
  const refresh = useAppStore((s) => s.refreshPlan);
  const hasPlans = useAppStore((s) => s.plans.length > 0);

  if (!planId) {
    return (
      <StatePanel kind="empty" testId="no-plan-open" title={hasPlans ? 'Select a plan to see its decisions, changes and events.' : 'Create a plan from a plan file to get started.'}>
        <p className="muted">
          Press <kbd>?</kbd> for keyboard shortcuts.
        </p>
      </StatePanel>
    );
  }
  if (!plan) {
    if (status === 'error')
      return (
        <StatePanel kind="error" title={`Couldn't load the plan: ${error ?? 'unknown error'}`}>
          <button type="button" className="button" onClick={refresh}>
            Try again
          </button>
        </StatePanel>
      );
    return <StatePanel kind="loading" title="Loading the plan…" />;
  }
  return (
    <div className="plan-view" data-testid="plan-view" data-plan-id={plan.id}>
      <PlanHeader plan={plan} />
      <FailureCard plan={plan} />
      <ApprovalCard plan={plan} />
      <ModelOutput plan={plan} />
      <Tabs />
      <TabPanel />
      <RewindDialog />
      <ForkDialog />
      <CompareView />
    </div>
  );
}
