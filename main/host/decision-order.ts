import { childrenByParent } from '../../shared/decision-tree';
import type { StrategyDecision } from '../../shared/domain';

/**
 * A plan's decisions in the order its tree shows them, fully expanded: depth first, siblings by
 * their order, a decision whose parent is missing as a root. A page of this order is what the
 * console shows first, with every parent before its children. Decisions caught in a parent cycle
 * (bad data) come last, so none is lost.
 */
export function inTreeOrder(decisions: readonly StrategyDecision[]): StrategyDecision[] {
  const children = childrenByParent(decisions);
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
