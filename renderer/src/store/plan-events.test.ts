import { describe, expect, it } from 'vitest';
import type { StreamEventOf } from '../../../shared/events';
import { makePlan } from '../test-support/fake-bridge';
import { reducePlanEvents } from './plan-events';

const usageEvent = (seq: number, data: Partial<StreamEventOf<'model_usage'>['data']>): StreamEventOf<'model_usage'> => ({
  planId: 'P1',
  seq,
  ts: '2026-12-06T00:00:00.000Z',
  type: 'model_usage',
  data: { decisionId: 'S1', phase: 'execute', inputTokens: 0, outputTokens: 0, stepInputTokens: 0, stepOutputTokens: 0, planInputTokens: 900, planOutputTokens: 80, ...data },
});

describe("a coding agent's reported cost in the console's header", () => {
  const state = { plan: makePlan({ usage: { inputTokens: 0, outputTokens: 0, costUsd: 0.1, steps: [] } }), decisions: {}, pausedDecisionId: null, nextRetry: null };

  it("is the plan's total as the event states it, so an event seen twice is not counted twice", () => {
    const event = usageEvent(7, { costUsd: 0.3, planCostUsd: 0.4 });
    const reduced = reducePlanEvents(state, [event, event]);
    expect(reduced.plan?.usage).toMatchObject({ inputTokens: 900, outputTokens: 80, costUsd: 0.4 });
  });

  it('adds the figure of an event stored before totals were kept, and keeps the cost of an event that has none', () => {
    expect(reducePlanEvents(state, [usageEvent(7, { costUsd: 0.3 })]).plan?.usage?.costUsd).toBeCloseTo(0.4);
    expect(reducePlanEvents(state, [usageEvent(8, {})]).plan?.usage?.costUsd).toBe(0.1);
  });
});
