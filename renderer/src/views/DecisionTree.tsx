import { useCallback, useMemo } from 'react';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { answersByDecision } from '../lib/approvals';
import { flattenTree } from '../lib/decision-tree';
import { useAppStore } from '../store/react';
import { PlanDefinition } from './PlanDefinition';
import { DecisionRow, TREE_ROW_HEIGHT, treeItemId } from './DecisionRow';
import { SubtaskRow } from './StepSubtasks';
import type { TreeRow } from '../lib/decision-tree';
import type { Subtask } from '../../../shared/subtasks';

/** What the tree lists: a decision, or one of a step's sub-tasks right under it (not selectable: keys move between decisions). */
type TreeItem = { row: TreeRow } | { subtask: Subtask; key: string; depth: number; posInSet: number; setSize: number };

function withSubtasks(rows: readonly TreeRow[]): TreeItem[] {
  const items: TreeItem[] = [];
  for (const row of rows) {
    items.push({ row });
    const subtasks = row.expanded ? (row.decision.subtasks ?? []) : [];
    subtasks.forEach((subtask, i) => items.push({ subtask, key: `${row.decision.id}:${i}`, depth: row.depth, posInSet: i + 1, setSize: subtasks.length }));
  }
  return items;
}

export function DecisionTree() {
  const decisions = useAppStore((s) => s.decisions);
  const expanded = useAppStore((s) => s.expanded);
  const status = useAppStore((s) => s.decisionsStatus);
  const selectedId = useAppStore((s) => s.selectedDecisionId);
  const pausedId = useAppStore((s) => s.pausedDecisionId);
  const breakpoints = useAppStore((s) => s.breakpoints);
  const tallies = useAppStore((s) => s.toolTallies);
  const progress = useAppStore((s) => s.callProgress);
  const select = useAppStore((s) => s.selectDecision);
  const toggle = useAppStore((s) => s.toggleExpanded);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);
  const plan = useAppStore((s) => s.plan);
  const phase = plan?.phase;
  const approvals = useAppStore((s) => s.approvals);
  const awaitingId = useAppStore((s) => s.pendingApproval?.decisionId ?? null);
  const rootId = plan?.decisionRootId ?? null;
  const checkpoints = useAppStore((s) => s.checkpoints);
  const checkpointOf = useMemo(() => new Map(checkpoints.map((c) => [c.decisionId, c])), [checkpoints]);

  const rows = useMemo(() => flattenTree(decisions, expanded), [decisions, expanded]);
  const items = useMemo(() => withSubtasks(rows), [rows]);
  const answers = useMemo(() => answersByDecision(decisions, approvals, rootId), [decisions, approvals, rootId]);
  const onSelect = useCallback((id: string) => select(id), [select]);

  if (rows.length === 0) {
    if (status === 'loading' || status === 'idle') return <StatePanel kind="loading" title="Loading decisions…" />;
    if (status === 'error') return <StatePanel kind="error" title="Couldn't load the decisions." />;
    if (plan && plan.phase === 'strategize') return <PlanDefinition plan={plan} />;
    return (
      <StatePanel
        kind="empty"
        testId="tree-empty"
        title={phase === 'strategize' ? 'Not strategized yet — press Run or Step to build the decision tree.' : 'This plan has no decisions.'}
      />
    );
  }

  const selectedIndex = items.findIndex((item) => 'row' in item && item.row.decision.id === selectedId);
  return (
    <VirtualList
      count={items.length}
      rowHeight={TREE_ROW_HEIGHT}
      scrollToIndex={selectedIndex}
      className="decision-tree"
      renderRow={(i) => {
        const item = items[i];
        if (!('row' in item)) return <SubtaskRow key={item.key} subtask={item.subtask} depth={item.depth} posInSet={item.posInSet} setSize={item.setSize} />;
        const { row } = item;
        const id = row.decision.id;
        return (
          <DecisionRow
            key={id}
            row={row}
            selected={id === selectedId}
            paused={id === pausedId}
            awaitingApproval={id === awaitingId}
            breakpoint={breakpoints.includes(id)}
            tally={tallies[id]}
            progress={row.decision.status === 'running' ? progress[id] : undefined}
            answer={answers.get(id)}
            checkpoint={checkpointOf.get(id)}
            onSelect={onSelect}
            onToggle={toggle}
          />
        );
      }}
      containerProps={{
        role: 'tree',
        tabIndex: 0,
        'aria-label': 'Decision tree',
        'aria-activedescendant': selectedId !== null && selectedIndex >= 0 ? treeItemId(selectedId) : undefined,
        'data-testid': 'decision-tree',
        'data-count': rows.length,
        'data-region': 'tree',
        onFocus: () => setFocusRegion('tree'),
      }}
    />
  );
}
