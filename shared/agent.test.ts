import { describe, expect, it } from 'vitest';
import { AgentFileSchema, agentSpecOf, BudgetAskSchema, describeBudgetAsk } from './agent';

describe('budget asks', () => {
  it('say what ran out, in its unit', () => {
    expect(describeBudgetAsk('Step 2', { limit: 'turns', used: 20, max: 20, more: 20 })).toBe('Step 2 used its 20 turns; allow 20 more?');
    expect(describeBudgetAsk('Step 2', { limit: 'outputTokens', used: 16_100, more: 16_000 })).toBe('Step 2 used its 16100 output tokens; allow 16000 more?');
    expect(describeBudgetAsk('Step 2', { limit: 'outputTokens', used: 15_700, max: 16_000, more: 16_000 })).toBe(
      'Step 2 has 300 of its 16000 output tokens left, too few for a turn; allow 16000 more?',
    );
    expect(describeBudgetAsk('Step 2', { limit: 'costUsd', used: 2.514, max: 2.5, more: 1 })).toBe('The plan has cost $2.51 of its $2.50; allow $1.00 more?');
  });

  it('take dollars and cents for a cost, whole numbers for turns and tokens', () => {
    expect(BudgetAskSchema.safeParse({ limit: 'costUsd', used: 2.51, more: 0.5 }).success).toBe(true);
    expect(BudgetAskSchema.safeParse({ limit: 'turns', used: 3, more: 2.5 }).success).toBe(false);
    expect(BudgetAskSchema.safeParse({ limit: 'outputTokens', used: 3, more: 0 }).success).toBe(false);
  });
});

describe('maxCostUsd in a plan file', () => {
  it('is kept in the agent spec', () => {
    expect(agentSpecOf(AgentFileSchema.parse({ maxCostUsd: 2.5 }))).toMatchObject({ maxCostUsd: 2.5 });
    expect(agentSpecOf(true)).not.toHaveProperty('maxCostUsd');
  });

  it('must be an amount above 0', () => {
    for (const bad of [0, -1, 'two']) expect(AgentFileSchema.safeParse({ maxCostUsd: bad }).success, String(bad)).toBe(false);
  });
});
