import { describe, expect, it } from 'vitest';
import type { StrategyDecision } from '../../shared/domain';
import type { ErrorRecord } from '../../shared/error-records';
import { formatErrors } from './format';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const failure = (id: string, s: number): ErrorRecord => ({
  id,
  planId: 'P',
  phase: 'execute',
  decisionId: 'step',
  attempt: 1,
  category: 'tool',
  retriable: false,
  recoveryAction: 'retry',
  message: `failed ${id}`,
  stack: null,
  hint: 'fix it',
  next: { action: 'retry', args: {}, message: 'fix it' },
  outcome: 'gave_up',
  createdAt: at(s),
});
const recovery = (id: string, s: number): StrategyDecision => ({
  id,
  planId: 'P',
  parentId: 'step',
  type: 'error_recovery',
  order: 0,
  description: 'Gave up',
  rationale: `gave up ${id}`,
  toolCalls: [],
  status: 'failed',
  createdAt: at(s),
  updatedAt: at(s),
});

describe('agents plan errors', () => {
  it('lists each failure of a step with its own recovery decisions, once', () => {
    const text = formatErrors([failure('A', 1), failure('B', 5)], [recovery('a', 1), recovery('b', 5)], []);
    expect(text.match(/\[recovery\].*/g)).toEqual(['[recovery] Gave up: gave up a', '[recovery] Gave up: gave up b']);
    expect(text.indexOf('gave up a')).toBeLessThan(text.indexOf('failure 2'));
  });
});
