import { isRejection } from '../../../shared/decision-tree';
import type { StrategyDecision } from '../../../shared/domain';
import type { ApprovalAnswer } from '../lib/approvals';
import { StatusIcon } from './Badges';

/** An answer's own mark: a rejected call is not a failed decision, but it should not look approved. */
export function AnswerIcon({ approved }: { approved: boolean }) {
  const label = approved ? 'approved' : 'rejected';
  return (
    <span className={`status-icon answer-${label}`} role="img" aria-label={label} title={label}>
      {approved ? '✓' : '✕'}
    </span>
  );
}

/**
 * A decision's mark: an approval shows its answer (from the approvals once they are paired with it,
 * else from the decision's own words, "Approved ..." or "Rejected ..."), any other its status.
 */
export function DecisionIcon({ decision, answer }: { decision: StrategyDecision; answer?: ApprovalAnswer }) {
  if (answer) return <AnswerIcon approved={answer.approved} />;
  if (decision.type === 'approval') return <AnswerIcon approved={!isRejection(decision)} />;
  return <StatusIcon status={decision.status} />;
}
