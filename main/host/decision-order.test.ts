import { describe, expect, it } from 'vitest';
import type { StrategyDecision } from '../../shared/domain';
import { inTreeOrder } from './decision-order';

const decision = (id: string, parentId: string | null, order: number): StrategyDecision => ({
  id,
  planId: 'P',
  parentId,
  type: parentId === null ? 'prompt_definition' : 'strategy_choice',
  order,
  description: id,
  rationale: '',
  toolCalls: [],
  status: 'pending',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('inTreeOrder', () => {
  it('walks depth first with siblings in order, whatever order the decisions come in', () => {
    const tree = [decision('b2', 'b', 1), decision('a', 'root', 0), decision('b', 'root', 1), decision('b1', 'b', 0), decision('root', null, 0), decision('a1', 'a', 0)];
    expect(inTreeOrder(tree).map((d) => d.id)).toEqual(['root', 'a', 'a1', 'b', 'b1', 'b2']);
  });

  it('makes a decision whose parent is missing a root, and loses none caught in a parent cycle', () => {
    const tree = [decision('root', null, 0), decision('orphan', 'gone', 1), decision('x', 'y', 0), decision('y', 'x', 0)];
    expect(inTreeOrder(tree).map((d) => d.id)).toEqual(['root', 'orphan', 'x', 'y']);
  });
});
