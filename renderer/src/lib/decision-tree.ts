import { childrenByParent as groupChildren } from '../../../shared/decision-tree';
import type { StrategyDecision } from '../../../shared/domain';

export interface TreeRow {
  decision: StrategyDecision;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
  /** 1-based position among its siblings, and how many siblings there are (for aria). */
  posInSet: number;
  setSize: number;
}

export type DecisionMap = Readonly<Record<string, StrategyDecision>>;

/** Children per parent id (roots under `null`), in sibling order. A missing parent makes a root. */
export function childrenByParent(decisions: DecisionMap): Map<string | null, StrategyDecision[]> {
  return groupChildren(Object.values(decisions));
}

/**
 * The rows a virtualized tree shows: a depth-first walk that enters only expanded nodes.
 * Pass `expandAll` to get every node in display order (e.g. to find the next failure).
 */
export function flattenTree(decisions: DecisionMap, expanded: Readonly<Record<string, boolean>>, expandAll = false): TreeRow[] {
  const children = childrenByParent(decisions);
  const rows: TreeRow[] = [];
  const visited = new Set<string>();
  const stack: { decision: StrategyDecision; depth: number; posInSet: number; setSize: number }[] = [];
  const pushChildren = (parent: string | null, depth: number) => {
    const list = children.get(parent) ?? [];
    for (let i = list.length - 1; i >= 0; i--) stack.push({ decision: list[i], depth, posInSet: i + 1, setSize: list.length });
  };
  pushChildren(null, 0);
  while (stack.length > 0) {
    const { decision, depth, posInSet, setSize } = stack.pop()!;
    if (visited.has(decision.id)) continue; // guards against a parent cycle in bad data
    visited.add(decision.id);
    // A coding agent's sub-tasks show under their step (DecisionTree), so they open and close with it.
    const hasChildren = (children.get(decision.id)?.length ?? 0) > 0 || (decision.subtasks?.length ?? 0) > 0;
    const isExpanded = hasChildren && (expandAll || expanded[decision.id] === true);
    rows.push({ decision, depth, hasChildren, expanded: isExpanded, posInSet, setSize });
    if (isExpanded) pushChildren(decision.id, depth + 1);
  }
  return rows;
}

/** Ids of every ancestor of a decision, nearest first, so it can be revealed. */
export function ancestorsOf(decisions: DecisionMap, id: string): string[] {
  const ancestors: string[] = [];
  let parent = decisions[id]?.parentId ?? null;
  while (parent !== null && decisions[parent] && !ancestors.includes(parent)) {
    ancestors.push(parent);
    parent = decisions[parent].parentId;
  }
  return ancestors;
}

export const DECISION_TYPE_LABELS: Record<StrategyDecision['type'], string> = {
  prompt_definition: 'Plan',
  strategy_choice: 'Step',
  error_recovery: 'Recovery',
  approval: 'Approval',
};
