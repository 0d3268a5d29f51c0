import { describe, expect, it } from 'vitest';
import { actionState } from './plan-actions';
import { makeApproval, makeEvent, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { handleKey } from './keyboard';

async function openWaitingPlan() {
  const t = testRuntime();
  t.fake.plan = makePlan({ processingState: 'paused', waitingFor: 'approval' });
  t.fake.approvals = [makeApproval('A1')];
  t.runtime.start();
  t.state().openPlan('P1');
  await t.settle();
  return t;
}

describe('approvals in the store', () => {
  it('loads the call the open plan waits for, and says so in the live region', async () => {
    const t = await openWaitingPlan();
    expect(t.state().pendingApproval?.id).toBe('A1');
    expect(t.state().status.text).toBe('shell.run waits for your approval: Clear the cache');
  });

  it('approves with a, approves every call of the tool with Shift+A, and takes the answer off the card at once', async () => {
    const t = await openWaitingPlan();
    t.fake.on('plans.approve', (r) => {
      t.fake.approvals = t.fake.approvals.map((a) => ({ ...a, status: 'approved', scope: r.all ? 'all' : 'once' }));
      t.fake.plan = { ...t.fake.plan, processingState: 'processing', waitingFor: null };
      return { plan: t.fake.plan };
    });
    expect(handleKey(t.store, 'a')).toBe(true);
    await t.settle();
    expect(t.fake.callsTo('plans.approve')).toEqual([{ planId: 'P1', all: false }]);
    expect(t.state().plan?.processingState).toBe('processing');
    expect(t.state().pendingApproval).toBeNull();

    t.fake.approvals = [makeApproval('A2')];
    t.state().refreshApprovals();
    await t.settle();
    t.store.setState({ plan: makePlan({ processingState: 'paused', waitingFor: 'approval' }) });
    handleKey(t.store, 'A');
    await t.settle();
    expect(t.fake.callsTo('plans.approve')).toEqual([
      { planId: 'P1', all: false },
      { planId: 'P1', all: true },
    ]);
  });

  it('x asks the card to focus the reason; a reject needs a reason and sends it trimmed', async () => {
    const t = await openWaitingPlan();
    handleKey(t.store, 'x');
    expect(t.state().rejectFocusRequest).toBe(1);
    await t.state().reject('   ');
    expect(t.fake.callsTo('plans.reject')).toEqual([]);
    expect(t.state().approvalError).toBe('Say why the call is rejected.');
    await t.state().reject('  deletes the fixtures ');
    expect(t.fake.callsTo('plans.reject')).toEqual([{ planId: 'P1', reason: 'deletes the fixtures' }]);
    expect(t.state().status.text).toBe('Rejected shell.run');
  });

  it('gives a step out of turns what it asks for, or the amount typed on the card', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ processingState: 'paused', waitingFor: 'approval' });
    const ask = { kind: 'budget' as const, tool: null, args: { limit: 'turns', used: 20, more: 20 }, description: 'Write NOTES.md', rationale: 'Step "Write NOTES.md" used its 20 turns; allow 20 more?' };
    t.fake.approvals = [makeApproval('A1', ask)];
    t.runtime.start();
    t.state().openPlan('P1');
    await t.settle();
    expect(t.state().status.text).toBe('Step "Write NOTES.md" used its 20 turns; allow 20 more?');
    t.fake.on('plans.approve', () => {
      t.fake.approvals = t.fake.approvals.map((a) => ({ ...a, status: 'approved' }));
      return { plan: { ...t.fake.plan, processingState: 'processing', waitingFor: null } };
    });
    expect(handleKey(t.store, 'a')).toBe(true);
    await t.settle();
    expect(t.fake.callsTo('plans.approve')).toEqual([{ planId: 'P1', all: false, more: { turns: 20 } }]);
    expect(t.state().status.text).toBe('Gave the step 20 more turns');

    t.fake.approvals = [makeApproval('A2', { ...ask, args: { limit: 'outputTokens', used: 16000, more: 16000 } })];
    t.state().refreshApprovals();
    await t.settle();
    t.store.setState({ plan: makePlan({ processingState: 'paused', waitingFor: 'approval' }) });
    await t.state().approve(false, 4000);
    expect(t.fake.callsTo('plans.approve').at(-1)).toEqual({ planId: 'P1', all: false, more: { outputTokens: 4000 } });

    t.fake.approvals = [makeApproval('A3', { ...ask, args: { limit: 'costUsd', used: 2.51, max: 2.5, more: 2.5 } })];
    t.state().refreshApprovals();
    await t.settle();
    t.store.setState({ plan: makePlan({ processingState: 'paused', waitingFor: 'approval' }) });
    await t.state().approve(false, 1.25);
    expect(t.fake.callsTo('plans.approve').at(-1)).toEqual({ planId: 'P1', all: false, more: { costUsd: 1.25 } });
    expect(t.state().status.text).toBe('Gave the plan $1.25 more');
  });

  it('ignores a, A and x unless the open plan waits for an approval', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ processingState: 'paused' });
    t.runtime.start();
    t.state().openPlan('P1');
    await t.settle();
    expect(['a', 'A', 'x'].map((key) => handleKey(t.store, key))).toEqual([false, false, false]);
    expect(t.fake.callsTo('plans.approve')).toEqual([]);
  });

  it('keeps the card and says why when the host refuses the answer', async () => {
    const t = await openWaitingPlan();
    t.fake.fail('plans.approve', 'plan P1 is still stopping; answer again in a moment');
    await t.state().approve(false);
    expect(t.state().approvalError).toBe('Approve failed: plan P1 is still stopping; answer again in a moment');
    expect(t.state().pendingApproval?.id).toBe('A1');
    expect(t.state().answering).toBeNull();
  });

  it('reloads the approvals when one is asked for or answered', async () => {
    const t = await openWaitingPlan();
    const before = t.fake.callsTo('plans.approvals').length;
    t.fake.emit(makeEvent(1, 'approval_resolved', { approvalId: 'A1', approved: true }));
    await t.frame();
    expect(t.fake.callsTo('plans.approvals').length).toBe(before + 1);
    t.fake.emit(makeEvent(2, 'approval_requested', { approvalId: 'A2' }));
    await t.frame();
    expect(t.fake.callsTo('plans.approvals').length).toBe(before + 2);
  });

  it('does not offer Step or Continue to a plan that waits for an answer, as the host lists them', async () => {
    const t = await openWaitingPlan();
    expect(t.fake.callsTo('plans.get').length).toBeGreaterThan(0);
    expect(actionState(t.state(), 'step')).toEqual({ allowed: false, reason: 'plan P1 is Waiting for approval; approve or reject the waiting call first' });
    expect(actionState(t.state(), 'continue').allowed).toBe(false);
    expect(actionState(t.state(), 'discard').allowed).toBe(true);
  });
});

describe('recovery in place', () => {
  it('skips the failed step: the plan is queued, the errors reload, and Run is next', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ processingState: 'errored' });
    t.state().openPlan('P1');
    await t.settle();
    const errorLoads = t.fake.callsTo('plans.errors').length;
    await t.state().skipStep();
    expect(t.fake.callsTo('plans.skip')).toEqual([{ planId: 'P1' }]);
    expect(t.state().plan?.processingState).toBe('queued');
    expect(t.state().status.text).toBe('Step skipped; press Run to go on');
    await t.settle();
    expect(t.fake.callsTo('plans.errors').length).toBe(errorLoads + 1);
  });

  it('changes the profile to a built-in one, and shows a refusal on the card', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ processingState: 'errored' });
    t.state().openPlan('P1');
    await t.settle();
    await t.state().changeProfile('full-auto');
    expect(t.fake.callsTo('plans.setProfile')).toEqual([{ planId: 'P1', profile: 'full-auto' }]);
    t.fake.fail('plans.skip', 'plan P1 is running; pause it or wait for it to stop');
    await t.state().skipStep();
    expect(t.state().recoveryError).toBe('Skip step failed: plan P1 is running; pause it or wait for it to stop');
  });
});
