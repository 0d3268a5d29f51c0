import { describe, expect, it } from 'vitest';
import type { Plan } from './domain';
import { comparePlansForList, needsAttention } from './plan-order';

type Row = Pick<Plan, 'id' | 'createdAt' | 'phase' | 'processingState' | 'waitingFor'>;
const row = (id: string, createdAt: string, processingState: Plan['processingState'] = 'queued', waitingFor: Plan['waitingFor'] = null): Row => ({
  id,
  createdAt,
  phase: 'execute',
  processingState,
  waitingFor,
});

describe('the order plans are listed in', () => {
  it('puts failed, interrupted and waiting plans first, then the newest, then the later id', () => {
    const plans = [
      row('old', '2026-01-01T00:00:00.000Z'),
      row('failed', '2025-12-01T00:00:00.000Z', 'errored'),
      row('b-same', '2026-01-02T00:00:00.000Z'),
      row('paused', '2026-01-03T00:00:00.000Z', 'paused'),
      row('a-same', '2026-01-02T00:00:00.000Z'),
      row('waiting', '2025-11-01T00:00:00.000Z', 'paused', 'approval'),
    ];
    expect(plans.sort(comparePlansForList).map((p) => p.id)).toEqual(['failed', 'waiting', 'paused', 'b-same', 'a-same', 'old']);
  });

  it('needs the operator for a failure or an unanswered call, not for a pause between steps', () => {
    expect(needsAttention({ phase: 'execute', processingState: 'errored' })).toBe(true);
    expect(needsAttention({ phase: 'execute', processingState: 'paused', waitingFor: 'approval' })).toBe(true);
    expect(needsAttention({ phase: 'execute', processingState: 'paused', waitingFor: null })).toBe(false);
    expect(needsAttention({ phase: 'apply', processingState: 'queued' })).toBe(false);
  });
});
