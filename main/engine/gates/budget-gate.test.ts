import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import { BudgetGate } from './budget-gate';
import { EngineError } from '../errors';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { pendingApprovalId } from '../test-support/pending-approval';

async function gate(profile: 'supervised' | 'full-auto' = 'supervised') {
  const lifecycle = inMemoryLifecycle();
  const approvals = new InMemoryApprovalStore();
  const plan = await lifecycle.createPlan({ name: 'p', definitionOfDone: ['x'], automationProfile: resolveProfile(profile), agent: { model: 'openai-compatible:m', maxTurnsPerStep: 5, maxOutputTokens: 100, maxCostUsd: 2.5 } });
  return { approvals, gate: new BudgetGate(approvals, lifecycle.events, plan.id, plan.automationProfile) };
}

const step = { id: 'S1', description: 'Write NOTES.md' };
const exhausted = () => new EngineError('the plan has cost $2.60 of its $2.50', 'budget');
const cost = { limit: 'costUsd' as const, used: 2.6, max: 2.5, more: 2.5 };

describe("the plan's cost budget at the gate", () => {
  it('asks once for the plan, and every approved ask adds to what is granted', async () => {
    const { approvals, gate: g } = await gate();
    const first = await pendingApprovalId(() => g.extend(step, cost, 4, exhausted));
    // Asked again at another step or turn, the open ask is the one.
    expect(await pendingApprovalId(() => g.extend({ ...step, id: 'S2' }, cost, 1, exhausted))).toBe(first);
    expect(await approvals.get(first)).toMatchObject({ kind: 'budget', decisionId: 'S1', rationale: 'The plan has cost $2.60 of its $2.50; allow $2.50 more?' });
    expect(await g.grantedUsd()).toBe(0);
    await approvals.update(first, { status: 'approved' });
    expect(await g.grantedUsd()).toBe(2.5);
    // The next time the cost reaches the budget, it is a new ask.
    const second = await pendingApprovalId(() => g.extend(step, { ...cost, used: 5.1, max: 5 }, 9, exhausted));
    expect(second).not.toBe(first);
    await approvals.update(second, { status: 'approved' });
    expect(await g.grantedUsd()).toBe(5);
  });

  it('refused, fails the step once with the reason; the next time it asks again', async () => {
    const { approvals, gate: g } = await gate();
    const id = await pendingApprovalId(() => g.extend(step, cost, 4, exhausted));
    await approvals.update(id, { status: 'rejected', answeredBy: 'ann', reason: 'too dear' });
    await expect(g.extend(step, cost, 4, exhausted)).rejects.toThrow('the plan has cost $2.60 of its $2.50; ann gave it no more: too dear');
    expect(await g.grantedUsd()).toBe(0);
    expect(await pendingApprovalId(() => g.extend(step, cost, 4, exhausted))).not.toBe(id);
  });

  it('is not mistaken for a step budget asked at the same turn', async () => {
    const { approvals, gate: g } = await gate();
    const turns = await pendingApprovalId(() => g.extend(step, { limit: 'turns', used: 5, max: 5, more: 5 }, 5, exhausted));
    await approvals.update(turns, { status: 'approved' });
    expect(await pendingApprovalId(() => g.extend(step, cost, 5, exhausted))).not.toBe(turns);
    expect(await g.extend(step, { limit: 'turns', used: 5, max: 5, more: 5 }, 5, exhausted)).toBe(5);
    expect(await g.grantedUsd()).toBe(0);
  });

  it('under full-auto asks nobody', async () => {
    const { gate: g } = await gate('full-auto');
    await expect(g.extend(step, cost, 4, exhausted)).rejects.toThrow('the plan has cost $2.60 of its $2.50');
  });
});
