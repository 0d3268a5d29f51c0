import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Confinement, ToolCallSpec, ToolInvocation } from '../../../shared/tool-calls';
import type { StrategyDecision } from '../../../shared/domain';
import { DecisionIcon } from '../components/DecisionIcon';
import { DECISION_TYPE_LABELS } from '../lib/decision-tree';
import { formatArgs, formatDuration, formatTime } from '../lib/format';
import { ChangeLinks } from '../components/ChangeLinks';
import { useAppStore } from '../store/react';
import { ApprovalAnswerFacts } from './ApprovalAnswerFacts';
import { StepCheckpoint } from './StepCheckpoint';

function PlannedCall({ call }: { call: ToolCallSpec }) {
  return (
    <div className="call planned" data-testid="planned-call" data-tool={call.tool}>
      <span className="call-tool">{call.tool}</span> <span className="call-args">{formatArgs(call.args)}</span>
    </div>
  );
}

const CONFINEMENT_LABELS: Record<Confinement, string> = {
  'bwrap-nobody': 'confined by bubblewrap, as nobody',
  bwrap: 'confined by bubblewrap',
  'sandbox-exec': 'confined by sandbox-exec',
  none: 'not confined',
};

function RanCall({ invocation }: { invocation: ToolInvocation }) {
  return (
    <div className={`call ran ${invocation.ok ? 'ok' : 'failed'}`} data-testid="ran-call" data-tool={invocation.tool} data-ok={invocation.ok}>
      <span className="call-tool">{invocation.tool}</span> <span className="call-args">{formatArgs(invocation.args)}</span>
      <div className="muted">
        {invocation.ok ? 'ok' : 'failed'} · {formatDuration(invocation.durationMs)} · <time dateTime={invocation.startedAt}>{formatTime(invocation.startedAt)}</time>
        {invocation.confinement && <> · <span data-testid="call-confinement">{CONFINEMENT_LABELS[invocation.confinement]}</span></>}
      </div>
      {invocation.error && <div className="call-error">{invocation.error.message}</div>}
    </div>
  );
}

const NO_CALLS: ToolInvocation[] = [];

/** The tool calls a decision planned, beside those that actually ran (retries add more). */
function ToolCalls({ decision, ran }: { decision: StrategyDecision; ran: ToolInvocation[] }) {
  if (decision.toolCalls.length === 0 && ran.length === 0) return <p className="muted">No tool calls.</p>;
  const rows = Math.max(decision.toolCalls.length, ran.length);
  return (
    <div className="calls-grid" role="table" aria-label="Planned and actual tool calls">
      <div role="row" className="calls-head">
        <span role="columnheader">Planned</span>
        <span role="columnheader">Ran</span>
      </div>
      {Array.from({ length: rows }, (_, i) => (
        <div role="row" key={i} className="calls-row">
          <div role="cell">{decision.toolCalls[i] ? <PlannedCall call={decision.toolCalls[i]} /> : null}</div>
          <div role="cell">{ran[i] ? <RanCall invocation={ran[i]} /> : <span className="muted">{i < decision.toolCalls.length ? 'not run' : ''}</span>}</div>
        </div>
      ))}
    </div>
  );
}

export function DecisionDetails() {
  const decision = useAppStore((s) => (s.selectedDecisionId ? s.decisions[s.selectedDecisionId] : undefined));
  const calls = useAppStore((s) => (s.selectedDecisionId ? s.decisionCalls[s.selectedDecisionId] : undefined));
  const loadCalls = useAppStore((s) => s.loadDecisionCalls);
  const changes = useAppStore(useShallow((s) => (s.selectedDecisionId ? s.changeEntries.filter((e) => e.decisionId === s.selectedDecisionId) : [])));
  const errors = useAppStore(useShallow((s) => (s.selectedDecisionId ? s.errors.filter((e) => e.decisionId === s.selectedDecisionId) : [])));
  const breakpoint = useAppStore((s) => (s.selectedDecisionId ? s.breakpoints.includes(s.selectedDecisionId) : false));
  const running = useAppStore((s) => s.plan?.processingState === 'processing' || s.plan?.processingState === 'paused');
  const toggleBreakpoint = useAppStore((s) => s.toggleBreakpoint);
  const plan = useAppStore((s) => s.plan);

  // A decision's calls are read when it is opened; events keep them current after that.
  const decisionId = decision?.id;
  useEffect(() => {
    if (decisionId) loadCalls(decisionId);
  }, [decisionId, loadCalls]);

  if (!decision) {
    return (
      <aside className="details empty" data-testid="decision-details" aria-label="Decision details">
        <p className="muted">Select a decision to see its rationale, its tool calls and the changes it made.</p>
      </aside>
    );
  }
  return (
    <aside className="details" data-testid="decision-details" data-decision-id={decision.id} data-status={decision.status} aria-label="Decision details">
      <h3>
        <DecisionIcon decision={decision} /> {decision.description}
      </h3>
      <p className="muted">
        {DECISION_TYPE_LABELS[decision.type]} · {decision.status} · updated {formatTime(decision.updatedAt)}
      </p>
      {decision.type === 'approval' ? <ApprovalAnswerFacts decision={decision} /> : decision.rationale && <p className="rationale">{decision.rationale}</p>}
      {decision.type === 'strategy_choice' && running && (
        <button type="button" className="button small" data-testid="toggle-breakpoint" aria-pressed={breakpoint} onClick={() => void toggleBreakpoint(decision.id)}>
          {breakpoint ? 'Remove breakpoint' : 'Set breakpoint'}
        </button>
      )}
      {decision.type === 'strategy_choice' && plan && <StepCheckpoint decision={decision} />}
      <h4>Tool calls</h4>
      {calls?.status === 'error' ? <p className="muted">Couldn't load the calls: {calls.error}</p> : <ToolCalls decision={decision} ran={calls?.invocations ?? NO_CALLS} />}
      <h4>Changes it made</h4>
      {changes.length === 0 ? (
        <p className="muted">No file changes.</p>
      ) : (
        <ul className="details-changes" data-testid="decision-changes">
          <ChangeLinks entries={changes} />
        </ul>
      )}
      {errors.length > 0 && (
        <>
          <h4>Errors</h4>
          <ol className="details-errors">
            {errors.map((e) => (
              <li key={e.id}>
                #{e.attempt} {formatTime(e.createdAt)} <span className="muted">{e.category}</span> {e.message}
              </li>
            ))}
          </ol>
        </>
      )}
    </aside>
  );
}
