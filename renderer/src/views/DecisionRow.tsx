import { memo } from 'react';
import { DecisionIcon } from '../components/DecisionIcon';
import type { ApprovalAnswer } from '../lib/approvals';
import { DECISION_TYPE_LABELS, type TreeRow } from '../lib/decision-tree';
import { plural } from '../lib/format';
import type { CallProgress, CallTally } from '../store/tool-calls';
import { CallProgressBar } from './CallProgressBar';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import { CheckpointMark } from './StepCheckpoint';
import { SubtaskTally } from './StepSubtasks';

export const TREE_ROW_HEIGHT = 30;


export function treeItemId(decisionId: string): string {
  return `decision-${decisionId}`;
}

interface DecisionRowProps {
  row: TreeRow;
  selected: boolean;
  paused: boolean;
  /** The step whose call waits for the operator's approval. */
  awaitingApproval?: boolean;
  breakpoint: boolean;
  tally: CallTally | undefined;
  /** The running call's progress, while it reports some. */
  progress?: CallProgress;
  /** For an `approval` decision: who answered, and why. */
  answer?: ApprovalAnswer;
  /** A step's checkpoint, taken as it started. */
  checkpoint?: CheckpointSummary;
  onSelect(id: string): void;
  onToggle(id: string): void;
}

function AnswerText({ answer, fallback }: { answer: ApprovalAnswer | undefined; fallback: string }) {
  const text = answer ? `by ${answer.by ?? 'the operator'}${answer.reason ? ` — ${answer.reason}` : ''}` : fallback;
  return (
    <span className={`tree-answer ${answer && !answer.approved ? 'rejected' : ''}`} title={text}>
      {text}
    </span>
  );
}

export const DecisionRow = memo(function DecisionRow({ row, selected, paused, awaitingApproval, breakpoint, tally, progress, answer, checkpoint, onSelect, onToggle }: DecisionRowProps) {
  const { decision, depth, hasChildren, expanded } = row;
  const planned = decision.toolCalls.length;
  const classes = ['tree-row', `type-${decision.type}`, `row-${decision.status}`, selected && 'selected', paused && 'paused'].filter(Boolean).join(' ');
  return (
    <div
      id={treeItemId(decision.id)}
      role="treeitem"
      aria-level={depth + 1}
      aria-posinset={row.posInSet}
      aria-setsize={row.setSize}
      aria-expanded={hasChildren ? expanded : undefined}
      aria-selected={selected}
      className={classes}
      data-testid="decision-row"
      data-decision-id={decision.id}
      data-status={decision.status}
      data-type={decision.type}
      data-paused={paused || undefined}
      data-ran={tally?.ran ?? 0}
      onClick={() => onSelect(decision.id)}
    >
      <span className="tree-indent" style={{ width: depth * 18 }} />
      {hasChildren ? (
        <button
          type="button"
          tabIndex={-1}
          className={`twisty ${expanded ? 'open' : ''}`}
          aria-label={expanded ? `Collapse ${decision.description}` : `Expand ${decision.description}`}
          onClick={(e) => {
            e.stopPropagation();
            onToggle(decision.id);
          }}
        >
          ▸
        </button>
      ) : (
        <span className="twisty-space" />
      )}
      <DecisionIcon decision={decision} answer={answer} />
      {breakpoint && <span className="breakpoint-dot" role="img" aria-label="breakpoint" title="Breakpoint" />}
      <span className="tree-type">{DECISION_TYPE_LABELS[decision.type]}</span>
      <span className="tree-desc">{decision.description}</span>
      {decision.type === 'approval' && (
        <AnswerText answer={answer} fallback={decision.rationale} />
      )}
      {decision.subtasks && decision.subtasks.length > 0 && <SubtaskTally subtasks={decision.subtasks} />}
      {checkpoint && <CheckpointMark checkpoint={checkpoint} />}
      {progress && <CallProgressBar progress={progress} />}
      {paused && <span className="tree-flag">paused here</span>}
      {awaitingApproval && <span className="tree-flag">waits for approval</span>}
      {(planned > 0 || (tally && tally.ran > 0)) && (
        <span className="tree-tools" title={planned > 0 ? 'Tool calls planned / run' : 'Tool calls run'}>
          {/* A model's step plans no calls ahead: it has only the ones it ran. */}
          {planned > 0 ? `${planned} planned · ${tally?.ran ?? 0} ran` : plural(tally?.ran ?? 0, 'call')}
          {tally && tally.failed > 0 && <span className="del"> · {tally.failed} failed</span>}
        </span>
      )}
    </div>
  );
});
