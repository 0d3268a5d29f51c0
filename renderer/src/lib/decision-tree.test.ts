import { describe, expect, it } from 'vitest';
import type { StrategyDecision } from '../../../shared/domain';
import { ancestorsOf, flattenTree } from './decision-tree';

const decision = (id: string, parentId: string | null, order: number, type: StrategyDecision['type'] = 'strategy_choice'): StrategyDecision => ({
  id,
  planId: 'P',
  parentId,
  type,
  order,
  description: id,
  rationale: '',
  toolCalls: [],
  status: 'pending',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const decisions = Object.fromEntries(
  [decision('root', null, 0, 'prompt_definition'), decision('s2', 'root', 1), decision('s1', 'root', 0), decision('r1', 's1', 0, 'error_recovery'), decision('s3', 'root', 2)].map((d) => [d.id, d]),
);

describe('flattening the decision tree', () => {
  it('walks depth-first in sibling order, entering expanded nodes only', () => {
    const rows = flattenTree(decisions, { root: true });
    expect(rows.map((r) => [r.decision.id, r.depth])).toEqual([
      ['root', 0],
      ['s1', 1],
      ['s2', 1],
      ['s3', 1],
    ]);
    expect(rows[1]).toMatchObject({ hasChildren: true, expanded: false, posInSet: 1, setSize: 3 });
  });

  it('puts recovery decisions under the step they belong to', () => {
    const rows = flattenTree(decisions, { root: true, s1: true });
    expect(rows.map((r) => r.decision.id)).toEqual(['root', 's1', 'r1', 's2', 's3']);
    expect(rows[2].depth).toBe(2);
  });

  it('shows only the root when the root is collapsed, and everything with expandAll', () => {
    expect(flattenTree(decisions, {}).map((r) => r.decision.id)).toEqual(['root']);
    expect(flattenTree(decisions, {}, true)).toHaveLength(5);
  });

  it('treats a decision whose parent is unknown as a root, and survives a cycle', () => {
    const odd = { a: decision('a', 'b', 0), b: decision('b', 'a', 0), c: decision('c', 'missing', 1) };
    const rows = flattenTree(odd, {}, true);
    expect(rows.map((r) => r.decision.id)).toEqual(['c']);
  });

  it('lists ancestors nearest first', () => {
    expect(ancestorsOf(decisions, 'r1')).toEqual(['s1', 'root']);
    expect(ancestorsOf(decisions, 'root')).toEqual([]);
  });
});
