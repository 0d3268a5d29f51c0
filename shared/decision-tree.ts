import type { StrategyDecision } from './domain';
import { compareAscii } from './compare';

/** An operator's answer in the tree that rejected the call: the answer's decision says "Rejected ..." (main/app/use-cases/approvals.ts words it). */
export function isRejection(decision: Pick<StrategyDecision, 'type' | 'description'>): boolean {
  return decision.type === 'approval' && decision.description.startsWith('Rejected');
}

/** Siblings in the order the tree shows them. */
export function bySiblingOrder(a: StrategyDecision, b: StrategyDecision): number {
  return a.order - b.order || compareAscii(a.createdAt, b.createdAt) || compareAscii(a.id, b.id);
}

/** Children per parent id (roots under `null`), in sibling order. A decision whose parent is missing is a root. */
export function childrenByParent(decisions: Iterable<StrategyDecision>): Map<string | null, StrategyDecision[]> {
  const all = [...decisions];
  const ids = new Set(all.map((d) => d.id));
  const children = new Map<string | null, StrategyDecision[]>();
  for (const decision of all) {
    const parent = decision.parentId !== null && ids.has(decision.parentId) ? decision.parentId : null;
    const list = children.get(parent);
    if (list) list.push(decision);
    else children.set(parent, [decision]);
  }
  for (const list of children.values()) list.sort(bySiblingOrder);
  return children;
}

/** The plan's steps (strategy choices) in the order the tree shows them; `agents plan` numbers them from 1 in this order. */
export function stepsInOrder(decisions: Iterable<StrategyDecision>): StrategyDecision[] {
  const children = childrenByParent(decisions);
  const steps: StrategyDecision[] = [];
  const walk = (parent: string | null) => {
    for (const decision of children.get(parent) ?? []) {
      if (decision.type === 'strategy_choice') steps.push(decision);
      walk(decision.id);
    }
  };
  walk(null);
  return steps;
}
