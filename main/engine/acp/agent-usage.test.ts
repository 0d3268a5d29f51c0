import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import { BudgetGate } from '../gates/budget-gate';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { pendingApprovalId } from '../test-support/pending-approval';
import { AcpUsageMeter, promptUsage, UsageCounter } from './agent-usage';

// The updates as the pinned agents send them (tests/agents): Qwen Code 0.24.4's createTranscriptUsageUpdate
// (a message chunk with `_meta.usage`, then a usage_update with the context only), and Claude Code's
// adapter 0.101.0 (usage_update with the session's running cost in USD; tokens in its prompt response).
const qwenChunk = (input: number, output: number): SessionUpdate => ({
  sessionUpdate: 'agent_message_chunk',
  content: { type: 'text', text: '' },
  _meta: { usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, cachedReadTokens: 0 }, durationMs: 41 },
});
const qwenContext: SessionUpdate = { sessionUpdate: 'usage_update', used: 1234, size: 131072 };
const claudeCost = (amount: number): SessionUpdate => ({ sessionUpdate: 'usage_update', used: 20814, size: 200000, cost: { amount, currency: 'USD' }, _meta: { '_claude/model': 'claude-sonnet-4-5' } });

describe('counting what a coding agent reports, each figure once', () => {
  it('Qwen Code: tokens from its message chunks; its context-only usage_update adds nothing', () => {
    const counter = new UsageCounter();
    counter.startTurn();
    expect(counter.update(qwenChunk(120, 30))).toEqual({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 0, costUsd: 0 });
    expect(counter.update(qwenContext)).toBeNull();
    expect(counter.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } })).toBeNull();
    expect(counter.update(qwenChunk(160, 12))).toMatchObject({ inputTokens: 160, outputTokens: 12 });
    // A response with no usage adds nothing.
    expect(counter.response(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 });
  });

  it('Claude Code: the running cost counted by what each usage_update added; a new process counts from zero again; other currencies are not dollars', () => {
    const counter = new UsageCounter();
    counter.startTurn();
    expect(counter.update(claudeCost(0.25))?.costUsd).toBeCloseTo(0.25);
    expect(counter.update(claudeCost(0.25))).toBeNull();
    expect(counter.update(claudeCost(0.4))?.costUsd).toBeCloseTo(0.15);
    counter.restart();
    expect(counter.update(claudeCost(0.1))?.costUsd).toBeCloseTo(0.1);
    // A total below the last one without a restart: the session's count began again.
    expect(counter.update(claudeCost(0.05))?.costUsd).toBeCloseTo(0.05);
    expect(counter.update({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 9, currency: 'credits' } })).toBeNull();
    // Its tokens come in the prompt response, counted whole as no chunk counted them.
    expect(counter.response({ inputTokens: 900, outputTokens: 80, totalTokens: 1500, cachedReadTokens: 520 })).toEqual({ inputTokens: 900, outputTokens: 80, cachedInputTokens: 520, costUsd: 0 });
  });

  it('an agent that reports tokens on chunks and in its response: the response adds only what the chunks did not', () => {
    const counter = new UsageCounter();
    counter.startTurn();
    counter.update(qwenChunk(100, 20));
    counter.update(qwenChunk(150, 25));
    expect(counter.response({ inputTokens: 250, outputTokens: 50, totalTokens: 300 })).toMatchObject({ inputTokens: 0, outputTokens: 5 });
    // The next turn counts afresh.
    counter.startTurn();
    expect(counter.response({ inputTokens: 250, outputTokens: 50, totalTokens: 300 })).toMatchObject({ inputTokens: 250, outputTokens: 50 });
  });

  it("a prompt response's totals: the protocol's usage, else Gemini CLI's _meta.quota.token_count, else none", () => {
    const usage = { inputTokens: 900, outputTokens: 80, totalTokens: 980 };
    expect(promptUsage({ stopReason: 'end_turn', usage })).toEqual(usage);
    // Gemini CLI 0.61.0's response, as it sends it.
    const gemini = { stopReason: 'end_turn' as const, _meta: { quota: { token_count: { input_tokens: 1840, output_tokens: 37 }, model_usage: [{ model: 'gemini-2.5-flash', token_count: { input_tokens: 1840, output_tokens: 37 } }] } } };
    expect(promptUsage(gemini)).toEqual({ inputTokens: 1840, outputTokens: 37, totalTokens: 1877 });
    expect(promptUsage({ stopReason: 'end_turn' })).toBeNull();
    expect(promptUsage({ stopReason: 'end_turn', _meta: { quota: {} } })).toBeNull();
  });
});

async function meter(budgets: { maxOutputTokens?: number; maxCostUsd?: number }) {
  const lifecycle = inMemoryLifecycle();
  const approvals = new InMemoryApprovalStore();
  const plan = await lifecycle.createPlan({ name: 'p', definitionOfDone: ['x'], automationProfile: resolveProfile('supervised') });
  const gate = new BudgetGate(approvals, lifecycle.events, plan.id, plan.automationProfile);
  const events: { type: string; data: unknown }[] = [];
  const emit = (type: string, data: unknown) => void events.push({ type, data });
  return { lifecycle, approvals, plan, events, emit, usage: new AcpUsageMeter({ planId: plan.id, agentName: 'claude', lifecycle, budgets, gate }) };
}

const step = { id: 'S1', description: 'Write NOTES.md' };

describe("a coding agent's usage on the plan, and its budgets", () => {
  it("records tokens and the reported cost on the plan as our model's usage is kept, with a model_usage event each", async () => {
    const { lifecycle, plan, events, emit, usage } = await meter({});
    await usage.check(step, 1);
    usage.startTurn();
    await usage.record(step, usage.counter.update(claudeCost(0.3)), emit);
    await usage.record(step, usage.counter.response({ inputTokens: 900, outputTokens: 80, totalTokens: 980 }), emit, 1);
    const kept = (await lifecycle.getPlan(plan.id)).usage;
    expect(kept).toMatchObject({ inputTokens: 900, outputTokens: 80, costUsd: 0.3, steps: [{ decisionId: 'S1', phase: 'execute', inputTokens: 900, outputTokens: 80, costUsd: 0.3, turns: 1 }] });
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ costUsd: 0.3, planCostUsd: 0.3, outputTokens: 0, provider: 'acp', model: 'claude' }),
      expect.objectContaining({ inputTokens: 900, outputTokens: 80, planOutputTokens: 80 }),
    ]);
  });

  it("a step's output tokens: passed mid-turn, the turn is stopped and the operator asked; approved, the step goes on with the budget again", async () => {
    const { approvals, plan, emit, usage } = await meter({ maxOutputTokens: 100 });
    await usage.check(step, 1);
    usage.startTurn();
    expect(await usage.record(step, usage.counter.update(qwenChunk(50, 60)), emit)).toBe(false);
    expect(await usage.record(step, usage.counter.update(qwenChunk(50, 60)), emit)).toBe(true);
    // The agent ended its turn by itself all the same: its step is done, nobody is asked.
    await usage.afterTurn(step, 'end_turn', 2);
    expect(await approvals.listForPlan(plan.id)).toEqual([]);
    const id = await pendingApprovalId(() => usage.afterTurn(step, 'cancelled', 2));
    expect(await approvals.get(id)).toMatchObject({ kind: 'budget', decisionId: 'S1', callIndex: 2, args: { limit: 'outputTokens', used: 120, max: 100, more: 100 } });
    await approvals.update(id, { status: 'approved' });
    // The step resumes at the ask's call: the grant is taken up once and counts from then on.
    await usage.check(step, 2);
    usage.startTurn();
    expect(await usage.record(step, usage.counter.update(qwenChunk(10, 70)), emit)).toBe(false);
    await usage.check(step, 3);
    expect(await usage.record(step, usage.counter.update(qwenChunk(10, 20)), emit)).toBe(true);
  });

  it("the plan's cost in USD: the next step's check asks, and an approved amount raises the budget", async () => {
    const { approvals, emit, usage } = await meter({ maxCostUsd: 0.5 });
    await usage.check(step, 1);
    usage.startTurn();
    expect(await usage.record(step, usage.counter.update(claudeCost(0.6)), emit)).toBe(true);
    const next = { id: 'S2', description: 'Stamp' };
    const id = await pendingApprovalId(() => usage.check(next, 1));
    expect(await approvals.get(id)).toMatchObject({ kind: 'budget', args: { limit: 'costUsd', max: 0.5, more: 0.5 } });
    expect((await approvals.get(id))?.rationale).toBe('The plan has cost $0.60 of its $0.50; allow $0.50 more?');
    await approvals.update(id, { status: 'approved' });
    await usage.check(next, 1);
    usage.startTurn();
    expect(await usage.record(next, usage.counter.update(claudeCost(0.8)), emit)).toBe(false);
    expect(await usage.record(next, usage.counter.update(claudeCost(1.05)), emit)).toBe(true);
  });

  it('an agent that reports no cost in USD (Qwen Code) is not held by a cost budget', async () => {
    const { approvals, plan, emit, usage } = await meter({ maxCostUsd: 0.01 });
    await usage.check(step, 1);
    usage.startTurn();
    expect(await usage.record(step, usage.counter.update(qwenChunk(5_000, 4_000)), emit)).toBe(false);
    expect(usage.counter.update(qwenContext)).toBeNull();
    await usage.afterTurn(step, 'end_turn', 1);
    await usage.check({ id: 'S2', description: 'Stamp' }, 1);
    expect(await approvals.listForPlan(plan.id)).toEqual([]);
  });
});
