import { describeAcpAgent } from '../../../shared/acp';
import { useEffect, useState } from 'react';
import type { PlanModelView } from '../../../shared/agent';
import type { PlanTraceView } from '../../../shared/contract';
import { CopyButton } from '../components/CopyButton';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { PHASES } from '../../../shared/domain';
import { ApprovalBadge } from '../components/ApprovalBadge';
import { StateBadge } from '../components/Badges';
import { STATUS_LABELS } from '../../../shared/vocabulary';
import { ACTIONS, TOOLBAR_ACTIONS } from '../../../shared/actions';
import type { ActionId } from '../../../shared/action-ids';
import { actionState } from '../store/plan-actions';
import { waitsForApproval } from '../store/approvals-slice';
import { reviewSummary } from '../lib/review-fold';
import { useAppStore } from '../store/react';
import { isQueuedForWorker, workerLabel, workerOf } from '../../../shared/team';
import { UsageSummary } from './UsageSummary';
import { PlanInvariants } from './PlanInvariants';
import { ChecksSummary } from './ChecksSummary';
import { PlanLineage } from './PlanLineage';

function PhaseTrack({ plan }: { plan: Plan }) {
  const current = PHASES.indexOf(plan.phase);
  return (
    <ol className="phase-track" aria-label="Phases">
      {PHASES.map((phase, i) => (
        <li key={phase} className={i < current || plan.processingState === 'complete' ? 'done' : i === current ? 'current' : ''} aria-current={i === current ? 'step' : undefined}>
          {phase}
        </li>
      ))}
    </ol>
  );
}

const stepCountsOf = new WeakMap<Record<string, StrategyDecision>, { done: number; total: number }>();

/** Steps done out of all, once per tree: the header reads them on every store update. */
function stepCounts(decisions: Record<string, StrategyDecision>): { done: number; total: number } {
  let counts = stepCountsOf.get(decisions);
  if (!counts) {
    counts = { done: 0, total: 0 };
    for (const d of Object.values(decisions)) {
      if (d.type !== 'strategy_choice') continue;
      counts.total += 1;
      if (d.status === 'done') counts.done += 1;
    }
    stepCountsOf.set(decisions, counts);
  }
  return counts;
}

/** The model the plan runs on, recorded when it was made; says so when this host cannot use it. */
function PlanModel({ plan, model }: { plan: Plan; model: PlanModelView | null }) {
  const name = model?.model ?? plan.agent?.model ?? 'no model recorded yet';
  const at = model?.baseUrl ?? plan.agent?.baseUrl;
  return (
    <span className={model?.usable === false ? 'muted model-unusable' : 'muted'} data-testid="plan-model" title={at ? `Requests go to ${at}` : undefined}>
      Model {name}
      {model?.usable === false && ` — not usable here: ${model.problem}`}
    </span>
  );
}

/**
 * The OpenTelemetry trace of the plan's current or last run (README.md, "Traces"): its id to copy,
 * and a link to the trace viewer when `traceUrl` is set.
 */
export function PlanTrace({ trace }: { trace: PlanTraceView }) {
  return (
    <span className="muted plan-trace" data-testid="plan-trace" data-trace-id={trace.traceId}>
      Trace{' '}
      <code className="trace-id" title={trace.traceId}>
        {trace.traceId}
      </code>{' '}
      <CopyButton text={trace.traceId} label="Copy the trace id" copied="Trace id copied" testId="copy-trace-id" />
      {trace.url && (
        <>
          {' '}
          <a href={trace.url} target="_blank" rel="noreferrer noopener" data-testid="open-trace">
            Open trace
          </a>
        </>
      )}
    </span>
  );
}

export function PlanHeader({ plan }: { plan: Plan }) {
  const runAction = useAppStore((s) => s.runAction);
  const pending = useAppStore((s) => s.pendingAction);
  const applying = useAppStore((s) => s.applyStatus === 'applying');
  const actionError = useAppStore((s) => s.actionError);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const planActions = useAppStore((s) => s.planActions);
  const steps = useAppStore((s) => stepCounts(s.decisions));
  const partlyApplied = useAppStore((s) => reviewSummary(s.reviewFiles).touched > 0);
  const model = useAppStore((s) => s.planModel);
  const trace = useAppStore((s) => s.planTrace);
  // A worker holds a plan's job while the plan runs; the team's status may lag the plan's own state by a poll.
  const worker = useAppStore((s) => (plan.processingState === 'processing' ? workerOf(s.team, plan.id) : null));
  const queued = useAppStore((s) => plan.processingState !== 'processing' && isQueuedForWorker(s.team, plan.id));

  useEffect(() => {
    if (!confirmDiscard) return;
    const timer = window.setTimeout(() => setConfirmDiscard(false), 4000);
    return () => window.clearTimeout(timer);
  }, [confirmDiscard]);

  const onAction = (action: ActionId) => {
    if (action === 'discard' && !confirmDiscard) {
      setConfirmDiscard(true);
      return;
    }
    setConfirmDiscard(false);
    void runAction(action);
  };

  return (
    <header
      className="plan-header"
      aria-labelledby="plan-header-name"
      role="region"
      data-testid="plan-header"
      data-plan-id={plan.id}
      data-plan-state={plan.processingState}
      data-plan-phase={plan.phase}
    >
      <div className="plan-title">
        <h2 id="plan-header-name" data-testid="plan-name">
          {plan.name}
        </h2>
        {/* One badge: a plan paused for an approval is waiting for the operator, and says only that. */}
        {waitsForApproval(plan) ? (
          <ApprovalBadge />
        ) : plan.phase === 'apply' && plan.processingState === 'queued' ? (
          <span className="badge state-awaiting-apply">{STATUS_LABELS.ready_to_apply}</span>
        ) : (
          <StateBadge state={plan.processingState} plan={plan} />
        )}
        <PhaseTrack plan={plan} />
        <span className="muted" title="Automation profile">
          {plan.automationProfile.name}
        </span>
        {steps.total > 0 && (
          <span className="muted step-count">
            {steps.done} of {steps.total} steps done
          </span>
        )}
        {plan.checks && <ChecksSummary summary={plan.checks} />}
        <UsageSummary plan={plan} />
        {plan.agent && <PlanModel plan={plan} model={model} />}
        {plan.acp && (
          <span className="muted" title={describeAcpAgent(plan.acp)}>
            Agent {plan.acp.name}
            {plan.acp.version ? ` (${plan.acp.version})` : ''}
          </span>
        )}
        {worker && (
          <span className="muted">
            Running on {workerLabel(worker)}
          </span>
        )}
        {queued && <span className="muted">Queued for a worker</span>}
        {trace && <PlanTrace trace={trace} />}
      </div>
      {plan.description && <p className="plan-description">{plan.description}</p>}
      <PlanInvariants plan={plan} />
      <PlanLineage plan={plan} />
      <div className="plan-controls" role="toolbar" aria-label="Plan controls">
        {TOOLBAR_ACTIONS.map((action) => {
          const spec = ACTIONS[action];
          const verdict = actionState({ planActions }, action);
          const busy = pending === action || (action === 'apply' && applying);
          const confirming = action === 'discard' && confirmDiscard;
          const key = spec.keys[0]?.key;
          // A control that is off says why, in the reason the host would give.
          const description = confirming ? 'Press again to discard' : verdict.allowed ? spec.description : verdict.reason;
          return (
            <button
              key={action}
              type="button"
              className={`button ${action === 'discard' ? 'danger' : ''} ${confirming ? 'confirming' : ''}`}
              data-testid={`action-${action}`}
              disabled={!verdict.allowed || busy}
              aria-description={description}
              aria-keyshortcuts={key}
              title={description + (key && verdict.allowed ? ` (${key})` : '')}
              aria-busy={busy || undefined}
              onClick={() => onAction(action)}
            >
              {confirming ? 'Confirm discard' : action === 'discard' && partlyApplied && verdict.allowed ? 'Discard the rest' : spec.label}
            </button>
          );
        })}
      </div>
      {actionError && (
        <p className="inline-error" role="alert" data-testid="action-error">
          {actionError}
        </p>
      )}
    </header>
  );
}
