import type { StrategyDecision } from '../../shared/domain';

function bySiblingOrder(a: StrategyDecision, b: StrategyDecision): number {
  return a.order - b.order || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/**
 * A plan's decisions in the order its tree shows them, fully expanded: depth first, siblings by
 * their order, a decision whose parent is missing as a root. A page of this order is what the
 * console shows first, with every parent before its children. Decisions caught in a parent cycle
 * (bad data) come last, so none is lost.
 */
export function inTreeOrder(decisions: readonly StrategyDecision[]): StrategyDecision[] {
  const ids = new Set(decisions.map((d) => d.id));
  const children = new Map<string | null, StrategyDecision[]>();
  for (const decision of decisions) {
    const parent = decision.parentId !== null && ids.has(decision.parentId) ? decision.parentId : null;
    const list = children.get(parent);
    if (list) list.push(decision);
    else children.set(parent, [decision]);
  }
  for (const list of children.values()) list.sort(bySiblingOrder);
  const ordered: StrategyDecision[] = [];
  const visited = new Set<string>();
  const stack = [...(children.get(null) ?? [])].reverse();
  while (stack.length > 0) {
    const decision = stack.pop()!;
    if (visited.has(decision.id)) continue;
    visited.add(decision.id);
    ordered.push(decision);
    const below = children.get(decision.id);
    if (below) for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]);
  }
  if (ordered.length < decisions.length) for (const decision of decisions) if (!visited.has(decision.id)) ordered.push(decision);
  return ordered;
}
