import { describe, expect, it } from 'vitest';
import type { AgentSpec, BudgetAsk } from '../../../shared/agent';
import { EngineError } from '../errors';
import { Budget, type CostMeter, MIN_TURN_OUTPUT_TOKENS, newToolLoopState } from './tool-loop';

const spec = (over: Partial<AgentSpec> = {}): AgentSpec => ({ model: null, maxTurnsPerStep: 20, maxOutputTokens: 16_000, ...over });

/** A budget whose state has spent `outputTokens`; the asks it makes are kept, and each is given `grant`. */
function budget(over: Partial<AgentSpec>, outputTokens: number, options: { grant?: number | null; cost?: CostMeter } = {}) {
  const state = { ...newToolLoopState('go'), outputTokens, turns: 2 };
  const asks: BudgetAsk[] = [];
  const extend =
    options.grant === null
      ? undefined
      : async (ask: BudgetAsk) => {
          asks.push(ask);
          return options.grant ?? ask.more;
        };
  return { budget: new Budget(spec(over), 'step "x"', state, extend, options.cost), asks, state };
}

async function failure(run: () => Promise<void>): Promise<EngineError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected the check to fail');
}

describe('a turn that would exceed the output tokens left', () => {
  it('is asked about once fewer than the minimum turn size are left', async () => {
    expect(MIN_TURN_OUTPUT_TOKENS).toBe(1_024);
    const enough = budget({}, 16_000 - MIN_TURN_OUTPUT_TOKENS);
    await enough.budget.check();
    expect(enough.asks).toEqual([]);

    const low = budget({}, 15_100);
    await low.budget.check();
    expect(low.asks).toEqual([{ limit: 'outputTokens', used: 15_100, max: 16_000, more: 16_000 }]);
    expect(low.budget.remainingTokens).toBe(16_900);
    expect(low.state.extraOutputTokens).toBe(16_000);
  });

  it('uses a quarter of a budget smaller than four turns of the minimum', async () => {
    const fine = budget({ maxOutputTokens: 100 }, 75);
    await fine.budget.check();
    expect(fine.asks).toEqual([]);
    const low = budget({ maxOutputTokens: 100 }, 76);
    await low.budget.check();
    expect(low.asks).toMatchObject([{ limit: 'outputTokens', used: 76, max: 100 }]);
  });

  it('fails the loop when nobody can be asked, saying how many are left', async () => {
    const { budget: b } = budget({}, 15_100, { grant: null });
    expect(await failure(() => b.check())).toMatchObject({ message: 'step "x" has 900 of its 16000 output tokens left, too few for a turn', category: 'budget' });
    const spent = budget({}, 16_200, { grant: null }).budget;
    await expect(spent.check()).rejects.toThrow('step "x" used its 16000 output tokens without finishing');
  });
});

describe("the plan's cost budget", () => {
  const meter = (spent: number, granted = 0): CostMeter => ({ spentUsd: async () => spent, grantedUsd: async () => granted });

  it('asks for maxCostUsd more once the cost reaches the budget and what was granted', async () => {
    const under = budget({ maxCostUsd: 2.5 }, 0, { cost: meter(2.49) });
    await under.budget.check();
    expect(under.asks).toEqual([]);
    const at = budget({ maxCostUsd: 2.5 }, 0, { cost: meter(2.51) });
    await at.budget.check();
    expect(at.asks).toEqual([{ limit: 'costUsd', used: 2.51, max: 2.5, more: 2.5 }]);
    const granted = budget({ maxCostUsd: 2.5 }, 0, { cost: meter(3, 1) });
    await granted.budget.check();
    expect(granted.asks).toEqual([]);
  });

  it('is not checked for a plan without maxCostUsd, and fails the loop when nobody can be asked', async () => {
    const none = budget({}, 0, { cost: meter(1_000) });
    await none.budget.check();
    expect(none.asks).toEqual([]);
    const { budget: b } = budget({ maxCostUsd: 2.5 }, 0, { grant: null, cost: meter(2.514) });
    expect(await failure(() => b.check())).toMatchObject({ message: 'the plan has cost $2.51 of its $2.50', category: 'budget' });
  });
});
