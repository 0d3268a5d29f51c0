import type { DecisionStatus, ProcessingState } from '../../../shared/domain';

const STATE_LABELS: Record<ProcessingState, string> = {
  queued: 'Queued',
  processing: 'Running',
  paused: 'Paused',
  complete: 'Complete',
  errored: 'Errored',
  cancelled: 'Cancelled',
};

export function StateBadge({ state }: { state: ProcessingState }) {
  return (
    <span className={`badge state-${state}`} data-testid="state-badge" data-state={state}>
      {STATE_LABELS[state]}
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
