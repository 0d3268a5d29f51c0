import { useMemo } from 'react';
import type { StrategyDecision } from '../../../shared/domain';
import { answersByDecision } from '../lib/approvals';
import { formatTime } from '../lib/format';
import { useAppStore } from '../store/react';

/** An `approval` decision's answer, as facts: what was answered, by whom, when and why; the host's prose until the answers load. */
export function ApprovalAnswerFacts({ decision }: { decision: StrategyDecision }) {
  const decisions = useAppStore((s) => s.decisions);
  const approvals = useAppStore((s) => s.approvals);
  const rootId = useAppStore((s) => s.plan?.decisionRootId ?? null);
  const answer = useMemo(() => answersByDecision(decisions, approvals, rootId).get(decision.id), [decisions, approvals, rootId, decision.id]);
  if (!answer) return decision.rationale ? <p className="rationale">{decision.rationale}</p> : null;
  return (
    <dl className="answer-facts" aria-label="The answer">
      <div>
        <dt>Answer</dt>
        <dd className={answer.approved ? 'ins' : 'del'}>{answer.approved ? (answer.scope === 'all' ? `approved, with every later ${answer.tool ?? ''} call` : 'approved') : 'rejected'}</dd>
      </div>
      <div>
        <dt>By</dt>
        <dd>{answer.by ?? 'unknown'}</dd>
      </div>
      {answer.from && (
        <div>
          <dt>On</dt>
          <dd>{answer.from}</dd>
        </div>
      )}
      {answer.at && (
        <div>
          <dt>At</dt>
          <dd>
            <time dateTime={answer.at}>{formatTime(answer.at)}</time>
          </dd>
        </div>
      )}
      {answer.reason && (
        <div>
          <dt>Reason</dt>
          <dd>{answer.reason}</dd>
        </div>
      )}
    </dl>
  );
}
