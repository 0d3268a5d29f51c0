import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import type { StrategyDecision } from '../../../shared/domain';
import { stepsInOrder } from '../../../shared/decision-tree';
import { newId } from '../../../shared/ids';
import { reviewProposedTree } from './proposed-tree';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';

/** An agent plan whose model proposed two steps under a root, as strategize leaves it. */
async function proposed(profile: 'supervised' | 'full-auto') {
  const lifecycle = inMemoryLifecycle();
  const ports = { lifecycle, approvals: new InMemoryApprovalStore(), events: lifecycle.events };
  const plan = await lifecycle.createPlan({ name: 'agent', definitionOfDone: ['Write a licence'], automationProfile: resolveProfile(profile), agent: { model: 'openai-compatible:m', maxTurnsPerStep: 5, maxOutputTokens: 100 } });
  const now = new Date().toISOString();
  const decision = (parentId: string | null, order: number, type: StrategyDecision['type'], description: string): StrategyDecision => ({
    id: newId(), planId: plan.id, parentId, type, order, description, rationale: `why ${description}`, toolCalls: [], status: 'pending', createdAt: now, updatedAt: now,
  });
  const root = decision(null, 0, 'prompt_definition', 'Write a licence');
  await lifecycle.saveDecisions([root, decision(root.id, 1, 'strategy_choice', 'Read the README'), decision(root.id, 2, 'strategy_choice', 'Write LICENSE')]);
  await lifecycle.update(plan.id, { decisionRootId: root.id });
  const steps = async () => stepsInOrder(await lifecycle.listDecisions(plan.id)).map((d) => [d.description, d.status]);
  return { lifecycle, ports, planId: plan.id, steps };
}

describe("the operator's review of a proposed tree", () => {
  it('executes at once under full-auto', async () => {
    const { ports, planId } = await proposed('full-auto');
    expect((await reviewProposedTree(ports, planId)).next).toBe('execute');
  });

  it('asks once for the steps shown, and executes once they are approved', async () => {
    const { ports, planId } = await proposed('supervised');
    const first = await reviewProposedTree(ports, planId);
    expect(first.next).toBe('wait');
    expect(await reviewProposedTree(ports, planId)).toEqual(first);
    const [approval] = await ports.approvals.listForPlan(planId);
    expect(approval).toMatchObject({ kind: 'plan', description: 'The model proposes 2 steps', args: { stepIds: expect.any(Array) } });
    await ports.approvals.update(approval!.id, { status: 'approved' });
    expect((await reviewProposedTree(ports, planId)).next).toBe('execute');
  });

  it('a rejection skips the open steps and sends the reason back to strategize, once', async () => {
    const { ports, planId, lifecycle, steps } = await proposed('supervised');
    await reviewProposedTree(ports, planId);
    const [approval] = await ports.approvals.listForPlan(planId);
    await ports.approvals.update(approval!.id, { status: 'rejected', reason: 'no README step' });
    expect((await reviewProposedTree(ports, planId)).next).toBe('propose_again');
    expect(await steps()).toEqual([
      ['Read the README', 'skipped'],
      ['Write LICENSE', 'skipped'],
    ]);
    expect(await lifecycle.getPlan(planId)).toMatchObject({ phase: 'strategize', agentFeedback: { reason: 'no README step' } });
    // The answer is used: the next review asks about the (new) tree again.
    expect((await reviewProposedTree(ports, planId)).next).toBe('wait');
  });
});
