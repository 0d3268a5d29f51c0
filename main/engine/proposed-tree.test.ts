import { describe, expect, it } from 'vitest';
import { resolveProfile, type StrategyDecision } from '../../shared/domain';
import { stepsInOrder } from '../../shared/decision-tree';
import { newId } from '../../shared/ids';
import { reviewProposedTree } from './proposed-tree';
import { InMemoryApprovalStore, inMemoryLifecycle } from './test-support/in-memory-stores';

/** An agent plan whose model proposed two steps under a root, as strategize leaves it. */
function proposed(profile: 'supervised' | 'full-auto') {
  const lifecycle = inMemoryLifecycle();
  const ports = { lifecycle, approvals: new InMemoryApprovalStore(), events: lifecycle.events };
  const plan = lifecycle.createPlan({ name: 'agent', definitionOfDone: ['Write a licence'], automationProfile: resolveProfile(profile), agent: { model: 'openai-compatible:m', maxTurnsPerStep: 5, maxOutputTokens: 100 } });
  const now = new Date().toISOString();
  const decision = (parentId: string | null, order: number, type: StrategyDecision['type'], description: string): StrategyDecision => ({
    id: newId(), planId: plan.id, parentId, type, order, description, rationale: `why ${description}`, toolCalls: [], status: 'pending', createdAt: now, updatedAt: now,
  });
  const root = decision(null, 0, 'prompt_definition', 'Write a licence');
  lifecycle.saveDecisions([root, decision(root.id, 1, 'strategy_choice', 'Read the README'), decision(root.id, 2, 'strategy_choice', 'Write LICENSE')]);
  lifecycle.update(plan.id, { decisionRootId: root.id });
  const steps = () => stepsInOrder(lifecycle.listDecisions(plan.id)).map((d) => [d.description, d.status]);
  return { lifecycle, ports, planId: plan.id, steps };
}

describe("the operator's review of a proposed tree", () => {
  it('executes at once under full-auto', () => {
    const { ports, planId } = proposed('full-auto');
    expect(reviewProposedTree(ports, planId).next).toBe('execute');
  });

  it('asks once for the steps shown, and executes once they are approved', () => {
    const { ports, planId } = proposed('supervised');
    const first = reviewProposedTree(ports, planId);
    expect(first.next).toBe('wait');
    expect(reviewProposedTree(ports, planId)).toEqual(first);
    const [approval] = ports.approvals.listForPlan(planId);
    expect(approval).toMatchObject({ kind: 'plan', description: 'The model proposes 2 steps', args: { stepIds: expect.any(Array) } });
    ports.approvals.update(approval!.id, { status: 'approved' });
    expect(reviewProposedTree(ports, planId).next).toBe('execute');
  });

  it('a rejection skips the open steps and sends the reason back to strategize, once', () => {
    const { ports, planId, lifecycle, steps } = proposed('supervised');
    reviewProposedTree(ports, planId);
    const [approval] = ports.approvals.listForPlan(planId);
    ports.approvals.update(approval!.id, { status: 'rejected', reason: 'no README step' });
    expect(reviewProposedTree(ports, planId).next).toBe('propose_again');
    expect(steps()).toEqual([
      ['Read the README', 'skipped'],
      ['Write LICENSE', 'skipped'],
    ]);
    expect(lifecycle.getPlan(planId)).toMatchObject({ phase: 'strategize', agentFeedback: { reason: 'no README step' } });
    // The answer is used: the next review asks about the (new) tree again.
    expect(reviewProposedTree(ports, planId).next).toBe('wait');
  });
});
