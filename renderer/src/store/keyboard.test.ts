import { describe, expect, it } from 'vitest';
import { makeApproval, makeDecision, makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { handleKey, KEY_HELP } from './keyboard';

async function withPlans() {
  const t = testRuntime();
  t.fake.plans = [
    makeListItem({ id: 'A', name: 'a', createdAt: '2026-01-03T00:00:00.000Z' }),
    makeListItem({ id: 'B', name: 'b', createdAt: '2026-01-02T00:00:00.000Z' }),
    makeListItem({ id: 'P1', name: 'broken', processingState: 'errored', needsAttention: true }),
  ];
  t.fake.decisions = [makeDecision('root', null, 0), makeDecision('s1', 'root', 0, { status: 'done' }), makeDecision('s2', 'root', 1, { status: 'failed' })];
  t.runtime.start();
  await t.settle();
  const press = (...keys: string[]) => keys.map((key) => handleKey(t.store, key));
  return { ...t, press };
}

describe('the keyboard', () => {
  it('moves through the plan list with j/k and opens with Enter', async () => {
    const t = await withPlans();
    expect(t.state().planCursorId).toBe('P1');
    t.press('j', 'j', 'j');
    expect(t.state().planCursorId).toBe('B');
    t.press('k');
    expect(t.state().planCursorId).toBe('A');
    t.press('Enter');
    expect(t.state().planId).toBe('A');
  });

  it('while the Create plan form is open, ignores shortcuts and closes it on Escape', async () => {
    const t = await withPlans();
    t.state().openPlan('P1');
    await t.settle();
    t.state().setCreateDraft({ content: 'name: x', fileName: 'x.yaml' });
    expect(t.press('j', 'r', '2')).toEqual([false, false, false]);
    expect(t.state().planCursorId).toBe('P1');
    expect(t.state().tab).toBe('decisions');
    expect(t.fake.callsTo('plans.retry')).toEqual([]);
    t.press('Escape');
    expect(t.state().createDraft).toBeNull();
  });

  it('while the apply confirmation is open, ignores shortcuts and cancels on Escape', async () => {
    const t = await withPlans();
    t.store.setState({ applyStatus: 'confirming' });
    t.press('j', '2');
    expect(t.state().planCursorId).toBe('P1');
    expect(t.state().tab).toBe('decisions');
    t.press('Escape');
    expect(t.state().applyStatus).toBe('idle');
  });

  it('moves through the tree and folds nodes when the tree has focus', async () => {
    const t = await withPlans();
    t.state().openPlan('P1');
    await t.settle();
    t.state().setFocusRegion('tree');
    t.press('j', 'j');
    expect(t.state().selectedDecisionId).toBe('s1');
    t.press('k', 'Enter');
    expect(t.state().expanded.root).toBe(false);
    expect(handleKey(t.store, 'ArrowRight', { inRegion: true })).toBe(true);
    expect(t.state().expanded.root).toBe(true);
  });

  it('reaches a failure with n and retries it with r', async () => {
    const t = await withPlans();
    t.fake.plan = makePlan({ processingState: 'errored' });
    t.press('n');
    await t.settle();
    expect(t.state().planId).toBe('P1');
    expect(t.state().selectedDecisionId).toBe('s2');
    t.press('r');
    await t.settle();
    expect(t.fake.callsTo('plans.retry')).toEqual([{ planId: 'P1' }]);
  });

  it("never answers an MCP server's question with a key: the question's form does, with what the operator filled in", async () => {
    const t = await withPlans();
    t.fake.plan = makePlan({ processingState: 'paused', waitingFor: 'approval' });
    t.state().openPlan('P1');
    await t.settle();
    const question = { server: 'srv', message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };
    t.store.setState({ pendingApproval: makeApproval('A1', { kind: 'input', tool: null, args: {}, elicitation: question } as never), approvalsStatus: 'loaded' });
    expect(handleKey(t.store, 'a')).toBe(false);
    expect(handleKey(t.store, 'A')).toBe(false);
    await t.settle();
    expect(t.fake.callsTo('plans.approve')).toEqual([]);
  });

  it('steps and continues with s and c', async () => {
    const t = await withPlans();
    t.fake.plan = makePlan({ processingState: 'paused' });
    t.state().openPlan('P1');
    await t.settle();
    t.press('s', 'c');
    await t.settle();
    expect(t.fake.callsTo('plans.step')).toHaveLength(1);
    expect(t.fake.callsTo('plans.continue')).toHaveLength(1);
  });

  it('opens the help sheet with ? and closes it with ? or Escape, ignoring other keys meanwhile', async () => {
    const t = await withPlans();
    t.press('?');
    expect(t.state().helpOpen).toBe(true);
    expect(handleKey(t.store, 'j')).toBe(false);
    t.press('Escape');
    expect(t.state().helpOpen).toBe(false);
    t.press('?', '?');
    expect(t.state().helpOpen).toBe(false);
  });

  it('leaves keys it does not know to the browser', async () => {
    const t = await withPlans();
    expect(handleKey(t.store, 'x')).toBe(false);
    expect(handleKey(t.store, 'ArrowDown')).toBe(false);
  });
  it('shows each tab by its key, the Checks tab by 4 only where the plan has checks, and the help sheet lists the keys', async () => {
    const t = await withPlans();
    t.state().openPlan('P1');
    await t.settle();
    expect(t.press('2')).toEqual([true]);
    expect(t.state().tab).toBe('changes');
    // This plan has no checks: no Checks tab, and its key does nothing.
    expect(t.press('4')).toEqual([false]);
    expect(t.state().tab).toBe('changes');
    t.store.setState({ plan: { ...t.state().plan!, verify: { checks: [{ name: 'npm test', run: 'npm test', timeoutSeconds: 60, criteria: [], source: 'plan' }], verifyEach: false } } });
    expect(t.press('4')).toEqual([true]);
    expect(t.state().tab).toBe('checks');
    expect(t.press('1')).toEqual([true]);
    expect(t.state().tab).toBe('decisions');
    expect(KEY_HELP).toContainEqual({ keys: '1 / 2 / 3 / 4', what: 'Show decisions / changes / events / checks (where the plan has them)' });
  });
});
