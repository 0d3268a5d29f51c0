import { describe, expect, it } from 'vitest';
import { makeEntry, makePlan, reviewOf } from '../test-support/fake-bridge';
import { checksView, failedSummary, result } from '../test-support/checks';
import { testRuntime } from '../test-support/runtime';
import { render } from '../test-support/render';
import { ChecksPanel } from './ChecksPanel';
import { PlanHeader } from './PlanHeader';
import { PlanView } from './PlanView';
import { ChangesetView } from './ChangesetView';
import { FailureCard } from './FailureCard';

const failedPlan = makePlan({ phase: 'apply', processingState: 'errored', errorDetails: { category: 'verification' }, checks: failedSummary });
const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('the checks in the plan header', () => {
  it('sums up the verdicts, the unchecked criteria apart from the passed ones', () => {
    const { store } = testRuntime();
    const html = render(store, <PlanHeader plan={makePlan({ checks: { ...failedSummary, total: 4, passed: 3, failed: 0, notChecked: 1, failedChecks: [] } })} />);
    expect(text(html)).toContain('Checks: 3 of 4 passed, 1 not checked');
  });

  it('says "Checks failed" and that a stale summary runs again before apply', () => {
    const { store } = testRuntime();
    expect(text(render(store, <PlanHeader plan={failedPlan} />))).toContain('Checks failed');
    expect(text(render(store, <PlanHeader plan={{ ...failedPlan, checks: { ...failedSummary, stale: true } }} />))).toContain('Checks: 1 of 2 passed, 1 failed (stale: they run again before apply)');
  });

  it('is not there for a plan with no checks', () => {
    const { store } = testRuntime();
    expect(render(store, <PlanHeader plan={makePlan()} />)).not.toContain('checks-summary');
  });
});

describe('the Checks tab', () => {
  it('is a tab of a plan with checks only', () => {
    const { store } = testRuntime();
    store.setState({ planId: 'P1', plan: failedPlan });
    expect(render(store, <PlanView />)).toMatch(/role="tab"[^>]*>Checks</);
    store.setState({ plan: makePlan() });
    expect(render(store, <PlanView />)).not.toMatch(/role="tab"[^>]*>Checks</);
  });

  it('shows each criterion’s verdict, never a not-checked one as passed, and each check’s evidence', () => {
    const { store } = testRuntime();
    const view = checksView({
      criteria: [
        { kind: 'done', index: 1, text: 'The tests pass', decisionId: null, verdict: 'failed', evidence: [{ resultId: 'R1', name: 'tests', passed: false }] },
        { kind: 'done', index: 2, text: 'The notes describe the project', decisionId: null, verdict: 'not checked', evidence: [] },
      ],
    });
    store.setState({ plan: failedPlan, checksView: view, checksStatus: 'loaded' });
    const html = render(store, <ChecksPanel plan={failedPlan} />);
    expect(html.match(/data-verdict="[^"]*"/g)).toEqual(['data-verdict="failed"', 'data-verdict="not checked"']);
    expect(text(html)).toContain('Definition of done 2 · no command checks it');
    expect(text(html)).toContain('Checks: 1 of 2 passed, 1 failed');
    expect(text(html)).toContain('$ npm test');
    expect(text(html)).toContain('exit code 1 · 1.2 s · confined (bwrap-nobody)');
    expect(html).toMatch(/<pre class="check-output"[^>]*>not ok 1 - adds\n<\/pre>/);
    // Run checks is on: a plan whose checks failed may run them again.
    expect(html).toMatch(/<button[^>]*data-testid="run-checks"[^>]*>Run checks</);
    expect(html).not.toMatch(/data-testid="run-checks"[^>]*disabled/);
  });

  it('streams a running check’s output in its row, and says why a check did not run', () => {
    const { store } = testRuntime();
    store.setState({
      checksView: checksView({ results: [result({ name: 'lint', run: 'npm run lint', refused: 'no confinement available', exitCode: null })], checks: [...checksView().checks, { name: 'lint', run: 'npm run lint', timeoutSeconds: 600, criteria: [], source: 'project', decisionId: null }] }),
      checksStatus: 'loaded',
      runningChecks: [{ resultId: 'R9', name: 'tests', run: 'npm test', decisionId: null, index: 1, total: 2, output: 'ok 1 - adds\n' }],
    });
    const html = render(store, <ChecksPanel plan={{ ...failedPlan, processingState: 'processing' }} />);
    expect(html.match(/data-check-state="[^"]*"/g)).toEqual(['data-check-state="running"', 'data-check-state="failed"']);
    expect(html).toMatch(/<pre class="check-output" role="log"[^>]*>ok 1 - adds\n<\/pre>/);
    expect(text(html)).toContain('check 1 of 2');
    expect(text(html)).toContain('refused: no confinement available');
    // A plan running cannot run its checks again.
    expect(html).toMatch(/data-testid="run-checks"[^>]*disabled/);
  });
});

describe('apply after failed checks', () => {
  it('asks a second time, naming the failed checks', () => {
    const { store } = testRuntime();
    store.setState({ planId: 'P1', plan: failedPlan, reviewFiles: reviewOf([makeEntry('e1', 'README.md')]), applyStatus: 'confirming', applyFailedChecks: 'plan P1: check "tests" failed' });
    const html = render(store, <ChangesetView />);
    expect(html).toContain('role="alertdialog"');
    expect(text(html)).toContain('The checks failed. Apply anyway?');
    expect(html).toMatch(/aria-label="Failed checks"><li><code>tests<\/code>/);
    expect(text(html)).toContain('Apply 1 file anyway');
  });
});

describe('the failure card of a plan whose checks failed', () => {
  it('names the failed checks and offers to ask the agent to fix it, or to run the checks again', () => {
    const { store } = testRuntime();
    const agent = { model: null, maxTurnsPerStep: 20, maxOutputTokens: 16000 };
    const plan = { ...failedPlan, agent };
    store.setState({ plan, planModel: { model: 'openai-compatible:scripted', baseUrl: 'http://127.0.0.1:9/v1', usable: true, problem: null } });
    const html = render(store, <FailureCard plan={plan} />);
    expect(text(html)).toContain('Checks failed: tests');
    expect(text(html)).toContain('Ask the agent to fix it');
    expect(html).toMatch(/<button[^>]*data-testid="failure-verify"[^>]*>Run checks</);
    expect(html).not.toMatch(/data-testid="failure-verify"[^>]*disabled/);
    // A scripted plan has no model to ask.
    store.setState({ plan: failedPlan });
    expect(text(render(store, <FailureCard plan={failedPlan} />))).not.toContain('Ask the agent to fix it');
  });
});
