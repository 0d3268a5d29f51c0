import { describe, expect, it } from 'vitest';
import { makeEntry, makeEvent, makePlan } from '../test-support/fake-bridge';
import { checksView, failedSummary, result } from '../test-support/checks';
import { testRuntime } from '../test-support/runtime';

async function openPlanWithChecks() {
  const t = testRuntime();
  t.fake.plan = makePlan({ phase: 'apply', processingState: 'errored', errorDetails: { category: 'verification' }, checks: failedSummary });
  t.fake.on('plans.checks', () => checksView());
  t.runtime.start();
  t.state().openPlan('P1');
  await t.settle();
  // Opening a plan reads no checks; the Checks tab asks for them as it opens.
  expect(t.fake.callsTo('plans.checks')).toEqual([]);
  t.state().refreshChecks();
  await t.settle();
  return t;
}

describe('the checks in the store', () => {
  it('loads the checks when the Checks tab asks, not with the plan, and closes them with it', async () => {
    const t = await openPlanWithChecks();
    expect(t.state().checksView?.results.map((r) => r.exitCode)).toEqual([1]);
    expect(t.state().checksStatus).toBe('loaded');
    t.state().closePlan();
    expect(t.state().checksView).toBeNull();
    expect(t.state().runningChecks).toEqual([]);
  });

  it('streams a running check’s output into its row, and reloads when the pass ends', async () => {
    const t = await openPlanWithChecks();
    t.fake.emit(makeEvent(1, 'check_started', { resultId: 'R2', name: 'tests', run: 'npm test', index: 1, total: 1 }));
    t.fake.emit(makeEvent(2, 'check_output', { resultId: 'R2', name: 'tests', text: 'ok 1 - adds\n' }));
    t.fake.emit(makeEvent(3, 'check_output', { resultId: 'R2', name: 'tests', text: 'ok 2 - subtracts\n' }));
    await t.frame();
    expect(t.state().runningChecks).toMatchObject([{ resultId: 'R2', name: 'tests', output: 'ok 1 - adds\nok 2 - subtracts\n' }]);

    const passed = result({ id: 'R2', exitCode: 0, passed: true, outputTail: 'ok 1 - adds\nok 2 - subtracts\n' });
    const summary = { ...failedSummary, passed: 2, failed: 0, failedChecks: [] };
    t.fake.on('plans.checks', () => checksView({ summary, results: [passed] }));
    const before = t.fake.callsTo('plans.checks').length;
    t.fake.emit(makeEvent(4, 'check_finished', passed));
    await t.frame();
    // The finished result replaces the check's last one at once.
    expect(t.state().runningChecks).toEqual([]);
    expect(t.state().checksView?.results.map((r) => r.id)).toEqual(['R2']);

    t.fake.emit(makeEvent(5, 'checks_complete', { runId: 'RUN2', summary }));
    await t.frame();
    expect(t.fake.callsTo('plans.checks').length).toBe(before + 1);
    expect(t.state().plan?.checks).toEqual(summary);
    expect(t.state().checksView?.summary).toEqual(summary);
  });

  it('marks the summary stale when the sandbox changes after the checks ran', async () => {
    const t = await openPlanWithChecks();
    const stale = { ...failedSummary, stale: true };
    t.fake.on('plans.checks', () => checksView({ summary: stale }));
    t.fake.emit(makeEvent(1, 'checks_stale', { reason: 'README.md edited', summary: stale }));
    await t.frame();
    expect(t.state().plan?.checks?.stale).toBe(true);
    expect(t.state().checksView?.summary?.stale).toBe(true);
  });

  it('runs the checks again through plans.verify', async () => {
    const t = await openPlanWithChecks();
    await t.state().runAction('verify');
    expect(t.fake.callsTo('plans.verify')).toEqual([{ planId: 'P1' }]);
    expect(t.state().plan?.processingState).toBe('processing');
  });

  it('applies after failed checks only once the operator confirms a second time', async () => {
    const t = await openPlanWithChecks();
    t.fake.entries = [makeEntry('e1', 'README.md')];
    t.state().refreshReview();
    await t.settle();
    await t.state().runAction('apply');
    expect(t.state().applyStatus).toBe('confirming');
    await t.state().confirmApply();
    // The first confirmation only asks again, naming the failed check.
    expect(t.fake.callsTo('plans.apply')).toEqual([]);
    expect(t.state().applyFailedChecks).toContain('check "tests" failed');
    t.state().cancelApply();
    expect(t.state().applyFailedChecks).toBeNull();

    await t.state().runAction('apply');
    await t.state().confirmApply();
    await t.state().confirmApply();
    expect(t.fake.callsTo('plans.apply')).toEqual([{ planId: 'P1', acceptFailedChecks: true }]);
    expect(t.state().applyFailedChecks).toBeNull();
  });

  it('applies at once when the failed checks are stale: they run again before apply', async () => {
    const t = await openPlanWithChecks();
    t.fake.entries = [makeEntry('e1', 'README.md')];
    t.state().refreshReview();
    await t.settle();
    t.store.setState({ plan: { ...t.state().plan!, phase: 'apply', processingState: 'queued', errorDetails: {}, checks: { ...t.state().plan!.checks!, stale: true } } });
    await t.state().runAction('apply');
    await t.state().confirmApply();
    expect(t.fake.callsTo('plans.apply')).toEqual([{ planId: 'P1' }]);
  });
});
