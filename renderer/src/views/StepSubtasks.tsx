import { memo } from 'react';
import { type Subtask, SUBTASK_MARKS, SUBTASK_STATUS_LABELS, subtaskTally } from '../../../shared/subtasks';

/** "2/5" in a step's row: how many of its coding agent's sub-tasks are done. */
export function SubtaskTally({ subtasks }: { subtasks: readonly Subtask[] }) {
  const tally = subtaskTally(subtasks);
  const [done, all] = tally.split('/');
  return (
    <span className="tree-subtasks" title={`${done} of ${all} sub-tasks completed`}>
      <span aria-hidden="true">☑ </span>
      {tally}
      <span className="visually-hidden"> sub-tasks completed</span>
    </span>
  );
}

export interface SubtaskRowProps {
  subtask: Subtask;
  /** The step's depth in the tree: a sub-task sits one below it. */
  depth: number;
  posInSet: number;
  setSize: number;
}

/** One sub-task under its step in the tree: its status's mark, its words, and its priority when high. */
export const SubtaskRow = memo(function SubtaskRow({ subtask, depth, posInSet, setSize }: SubtaskRowProps) {
  const label = SUBTASK_STATUS_LABELS[subtask.status];
  return (
    <div role="treeitem" aria-level={depth + 2} aria-posinset={posInSet} aria-setsize={setSize} aria-selected={false} className={`tree-row subtask-row subtask-${subtask.status}`} data-status={subtask.status}>
      <span className="tree-indent" style={{ width: (depth + 1) * 18 }} />
      <span className="twisty-space" />
      <span className="subtask-mark" role="img" aria-label={label} title={label}>
        {SUBTASK_MARKS[subtask.status]}
      </span>
      <span className="tree-desc">{subtask.content}</span>
      {subtask.priority === 'high' && <span className="tree-flag">high</span>}
    </div>
  );
});
