import type { DecisionStatus, ProcessingState } from '../../../shared/domain';
import { type PlanStanding, statusLabel } from '../../../shared/vocabulary';


/** The plan's status in the shared vocabulary: "Failed" and "Interrupted" are both the errored state. */
export function StateBadge({ state, plan }: { state: ProcessingState; plan?: PlanStanding }) {
  return (
    <span className={`badge state-${state}`} data-testid="state-badge" data-state={state}>
      {statusLabel(plan ?? { phase: 'execute', processingState: state })}
    </span>
  );
}

const STATUS_ICONS: Record<DecisionStatus, string> = {
  pending: '○',
  running: '◐',
  done: '✓',
  failed: '✕',
  skipped: '–',
};

export function StatusIcon({ status }: { status: DecisionStatus }) {
  return (
    <span className={`status-icon status-${status}`} title={status} aria-label={status} role="img">
      {STATUS_ICONS[status]}
    </span>
  );
}

export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  return (
    <span className="progress">
      <progress max={Math.max(1, total)} value={Math.min(done, Math.max(1, total))} aria-label={label} />
      <span className="progress-text">
        {done}/{total}
      </span>
    </span>
  );
}
