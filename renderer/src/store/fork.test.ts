import { describe, expect, it } from 'vitest';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import { bridgeFailure } from '../../../shared/contract';
import type { PlanCompare } from '../../../shared/plan-compare';
import { makeDecision, makeEvent, makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { handleKey } from './keyboard';

const checkpoint = (step: number): CheckpointSummary => ({
  id: `C${step}`,
  planId: 'P1',
  step,
  decisionId: `s${step}`,
  description: `decision s${step}`,
  createdAt: `2026-01-01T10:0${step}:00.000Z`,
  filesChanged: 1,
  entries: step - 1,
  inputTokens: 0,
  outputTokens: 0,
});

/** A plan that ran its two steps and waits to be applied, a checkpoint before each. */
async function openRanPlan() {
  const t = testRuntime();
  t.fake.plans = [makeListItem()];
  t.fake.plan = makePlan({ phase: 'apply', processingState: 'queued' });
  t.fake.decisions = [makeDecision('root', null, 0), makeDecision('s1', 'root', 0, { status: 'done' }), makeDecision('s2', 'root', 1, { status: 'done' })];
  t.fake.checkpoints = [checkpoint(1), checkpoint(2)];
  t.fake.events = [makeEvent(1, 'plan_created')];
  t.runtime.start();
  await t.settle();
  t.state().openPlan('P1');
  await t.settle();
  return t;
}

describe('fork in the store', () => {
  it('Fork from here asks first; confirming forks with the profile and model chosen and opens the new plan, not run', async () => {
    const t = await openRanPlan();
    await t.state().runAction('fork', { atStep: 2 });
    expect(t.state().forkDialog).toEqual({ atStep: 2, forking: false, error: null });
    expect(t.fake.callsTo('plans.fork')).toEqual([]);

    const origin = t.fake.plan;
    const fork = makePlan({ id: 'P2', phase: 'execute', processingState: 'queued', forkedFrom: { planId: 'P1', atStep: 2, checkpointAt: origin.createdAt, by: 'console', at: origin.createdAt } });
    t.fake.on('plans.fork', () => {
      t.fake.plan = fork;
      return { plan: fork, fork: { forkId: 'P2', from: 'P1', atStep: 2, sharedSteps: 1, sharedEntries: 1, changes: { profile: 'supervised' } } };
    });
    await t.state().confirmFork({ profile: 'supervised', model: '  ' });
    await t.settle();
    expect(t.fake.callsTo('plans.fork')).toEqual([{ planId: 'P1', atStep: 2, profile: 'supervised' }]);
    expect(t.state().forkDialog).toBeNull();
    expect(t.state().planId).toBe('P2');
    expect(t.state().plan).toMatchObject({ id: 'P2', processingState: 'queued' });
    expect(t.fake.callsTo('plans.run')).toEqual([]);
    expect(t.state().status.text).toBe('Forked plan add-license at step 2: opened the new plan P2; press Run to run it from step 2');
  });

  it('a model typed is sent trimmed; a refusal stays in the dialog in one line and nothing opens', async () => {
    const t = await openRanPlan();
    t.state().askFork(1);
    t.fake.on('plans.fork', () => {
      throw bridgeFailure({ code: 'wrong_state', message: 'plan P1 is running; pause it or wait for it to stop before forking' });
    });
    await t.state().confirmFork({ model: ' openai:gpt-4o ' });
    expect(t.fake.callsTo('plans.fork')).toEqual([{ planId: 'P1', atStep: 1, model: 'openai:gpt-4o' }]);
    expect(t.state().forkDialog).toEqual({ atStep: 1, forking: false, error: 'Fork failed: plan P1 is running; pause it or wait for it to stop before forking' });
    expect(t.state().planId).toBe('P1');
    t.state().cancelFork();
    expect(t.state().forkDialog).toBeNull();
  });

  it('is refused by the rule while the plan runs, without asking the host', async () => {
    const t = await openRanPlan();
    t.state().askFork(2);
    t.store.setState({ plan: makePlan({ processingState: 'processing' }) });
    await t.state().confirmFork({});
    expect(t.fake.callsTo('plans.fork')).toEqual([]);
    expect(t.state().forkDialog?.error).toBe('plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before forking');
  });
});

describe('a fork made elsewhere', () => {
  it('shows on the open origin at once: its plan is read again, and the live region says so', async () => {
    const t = await openRanPlan();
    t.fake.plan = { ...t.fake.plan, forks: [{ planId: 'P2', atStep: 2, by: 'alice', at: '2026-01-01T11:00:00.000Z' }] };
    const lists = t.fake.callsTo('plans.list').length;
    t.fake.emit(makeEvent(2, 'plan_forked', { forkId: 'P2', from: 'P1', atStep: 2, by: 'alice', sharedSteps: 1, sharedEntries: 1, changes: {} }));
    await t.frame();
    await t.settle();
    expect(t.state().plan?.forks).toEqual([{ planId: 'P2', atStep: 2, by: 'alice', at: '2026-01-01T11:00:00.000Z' }]);
    expect(t.state().status.text).toBe('add-license forked at step 2 by alice: new plan P2');
    expect(t.fake.callsTo('plans.list').length).toBeGreaterThan(lists);
  });
});

describe('keys while fork or compare is open', () => {
  it('only Escape acts: it closes the confirmation, or the compare view', async () => {
    const t = await openRanPlan();
    await t.state().runAction('fork', { atStep: 2 });
    expect(['j', 'r', '2'].map((key) => handleKey(t.store, key))).toEqual([false, false, false]);
    expect(t.state().tab).toBe('decisions');
    expect(handleKey(t.store, 'Escape')).toBe(true);
    expect(t.state().forkDialog).toBeNull();
    await t.state().openCompare('P2');
    expect(['j', 'a', '3'].map((key) => handleKey(t.store, key))).toEqual([false, false, false]);
    expect(t.state().tab).toBe('decisions');
    expect(handleKey(t.store, 'Escape')).toBe(true);
    expect(t.state().compareView).toBeNull();
    expect(t.fake.callsTo('plans.fork')).toEqual([]);
  });
});

describe('compare in the store', () => {
  const side = (planId: string, stepsDone: number) => ({ planId, name: 'add-license', status: 'Ready to apply', files: [], stepsDone, steps: 2, toolCalls: 3, inputTokens: 0, outputTokens: 0, cost: null, durationMs: 1200 });

  it('asks the host for the open plan beside the other one, and shows its refusal', async () => {
    const t = await openRanPlan();
    const answer: PlanCompare = { projectPath: '/p', a: side('P1', 2), b: side('P2', 1), onlyA: ['A.md'], onlyB: [], both: [] };
    t.fake.on('plans.compare', () => answer);
    await t.state().openCompare('P2');
    expect(t.fake.callsTo('plans.compare')).toEqual([{ planId: 'P1', with: 'P2' }]);
    expect(t.state().compareView).toEqual({ with: 'P2', status: 'loaded', data: answer, error: null });
    t.state().closeCompare();
    expect(t.state().compareView).toBeNull();

    t.fake.on('plans.compare', () => {
      throw bridgeFailure({ code: 'invalid_request', message: 'plans P1 and P9 are over different projects' });
    });
    await t.state().openCompare('P9');
    expect(t.state().compareView).toEqual({ with: 'P9', status: 'error', data: null, error: 'plans P1 and P9 are over different projects' });
  });
});
