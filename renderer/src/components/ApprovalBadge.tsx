import { STATUS_LABELS } from '../../../shared/vocabulary';

/** Marks a plan that stopped for the operator's answer: paused, but not for a step or a breakpoint. */
export function ApprovalBadge() {
  return (
    <span className="badge waiting-approval" data-testid="approval-badge">
      {STATUS_LABELS.waiting_for_approval}
    </span>
  );
}
