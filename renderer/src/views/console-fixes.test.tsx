import { describe, expect, it } from 'vitest';
import type { ErrorRecord } from '../../../shared/error-records';
import { flattenTree } from '../lib/decision-tree';
import { eventText } from '../../../shared/event-text';
import { makeDecision, makeEntry, makeEvent, makePlan, reviewOf, NOTIFY_DEFAULTS } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { DecisionDetails } from './DecisionDetails';
import { DecisionRow } from './DecisionRow';
import { FailureCard } from './FailureCard';
import { PlanDefinition } from './PlanDefinition';
import { PlanHeader } from './PlanHeader';
import { PlanView } from './PlanView';
import { SettingsSheet } from './SettingsSheet';

const count = (html: string, text: string) => html.split(text).length - 1;

const errorRecord = (overrides: Partial<ErrorRecord> = {}): ErrorRecord => ({
  id: 'E1',
  planId: 'P1',
  phase: 'execute',
  decisionId: 's2',
  attempt: 1,
  category: 'tool',
  retriable: false,
  recoveryAction: 'retry',
  message: 'find text not found',
  stack: null,
  hint: 'Fix the cause in the sandbox, then retry',
  next: { action: 'retry', args: {}, message: 'Fix the cause in the sandbox, then retry' },
  outcome: 'gave_up',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const twoSteps = (second: Partial<Parameters<typeof makeDecision>[3]> = {}) => ({
  root: makeDecision('root', null, 0, { type: 'prompt_definition', description: 'the plan' }),
  s1: makeDecision('s1', 'root', 0, { status: 'done', description: 'Fetch' }),
  s2: makeDecision('s2', 'root', 1, { description: 'Build the docs', ...second }),
});

describe('Apply from the header', () => {
  it('on the Decisions tab goes to Changes and opens the confirmation there; leaving Changes closes it', async () => {
    const { store } = testRuntime();
    const plan = makePlan({ phase: 'apply', processingState: 'queued', projectPath: '/p' });
    store.setState({ planId: plan.id, plan, planStatus: 'loaded', tab: 'decisions', reviewFiles: reviewOf([makeEntry('e1', 'README.md')]) });
    await store.getState().runAction('apply');
    expect(store.getState()).toMatchObject({ tab: 'changes', applyStatus: 'confirming' });
    const html = render(store, <PlanView />);
    expect(html).toContain('role="dialog"');
    expect(html).toContain('Apply 1 file to the project?');
    store.getState().setTab('decisions');
    expect(store.getState().applyStatus).toBe('idle');
  });
});

describe('the failure card', () => {
  it('keeps its actions out of the scrolling details', () => {
    const { store } = testRuntime();
    store.setState({ errors: [errorRecord()], decisions: twoSteps({ status: 'failed' }) });
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'errored', errorMessage: 'file.edit failed' })} />);
    const body = html.slice(html.indexOf('class="failure-body"'), html.indexOf('class="failure-footer"'));
    expect(body).toContain('find text not found');
    expect(body).not.toContain('failure-retry');
    expect(html.slice(html.indexOf('class="failure-footer"'))).toContain('Retry from the failed step');
  });

  it('names the step an interrupted run was in, numbered as the tree numbers it', () => {
    const { store } = testRuntime();
    const interrupted = errorRecord({ category: 'interrupted', message: 'The process running this plan stopped during execute' });
    store.setState({ errors: [interrupted], decisions: twoSteps() });
    // The decision's failed status has not reached the console; the error names the step.
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'errored', errorDetails: { category: 'interrupted', decisionId: 's2' } })} />);
    expect(html).toContain('Interrupted during step 2: Build the docs');
    expect(html).not.toContain('execute failed');
  });

  it('shows the sandbox path with a Copy button, where the hint says to fix the cause', () => {
    const { store } = testRuntime();
    store.setState({ errors: [errorRecord()], decisions: twoSteps({ status: 'failed' }) });
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'errored', sandboxRefs: ['/data/sandboxes/P1'] })} />);
    expect(html).toMatch(/<code data-testid="failure-sandbox">\/data\/sandboxes\/P1<\/code><button[^>]*aria-description="Copy the sandbox path[^>]*>Copy<\/button>/);
  });
});

describe('a plan with no decision tree', () => {
  it('offers Run only where Run is possible: an errored agent plan says strategize failed', () => {
    const { store } = testRuntime();
    const errored = render(store, <PlanDefinition plan={makePlan({ phase: 'strategize', processingState: 'errored', decisionRootId: null })} />);
    expect(errored).not.toContain('press Run');
    expect(errored).toContain('Strategize failed');
    expect(render(store, <PlanDefinition plan={makePlan({ phase: 'strategize', processingState: 'queued', decisionRootId: null })} />)).toContain('press Run');
  });

  it('shows the plan invariants once, in the header', () => {
    const { store } = testRuntime();
    const plan = makePlan({ phase: 'strategize', decisionRootId: null, invariants: ['Keep greet() unchanged'] });
    const html = render(
      store,
      <>
        <PlanHeader plan={plan} />
        <PlanDefinition plan={plan} />
      </>,
    );
    expect(count(html, 'Keep greet() unchanged')).toBe(1);
  });
});

describe('the plan header', () => {
  it('shows one badge for a plan paused for an approval', () => {
    const { store } = testRuntime();
    const html = render(store, <PlanHeader plan={makePlan({ processingState: 'paused', waitingFor: 'approval' })} />);
    expect(count(html, 'class="badge')).toBe(1);
    expect(html).toContain('Waiting for approval');
  });

  it('has no disabled "Discard the rest" once everything is applied', () => {
    const { store } = testRuntime();
    const [file] = reviewOf([makeEntry('e1', 'README.md')]);
    const applied = makePlan({ phase: 'apply', processingState: 'complete' });
    store.setState({ plan: applied, reviewFiles: [{ ...file, state: 'applied' }] });
    const html = render(store, <PlanHeader plan={applied} />);
    expect(html).not.toContain('Discard the rest');
    // While discarding is allowed, after a partial apply, the button says what it drops.
    const ready = makePlan({ phase: 'apply', processingState: 'queued' });
    store.setState({ plan: ready });
    const partial = render(store, <PlanHeader plan={ready} />);
    expect(partial).toContain('Discard the rest');
  });
});

describe('the decision tree rows', () => {
  const rowOf = (decisions: ReturnType<typeof twoSteps>, id: string) => flattenTree(decisions, {}, true).find((r) => r.decision.id === id)!;

  it('marks a rejection with a cross even before its answer is paired with it', () => {
    const { store } = testRuntime();
    const decisions = { ...twoSteps(), a1: makeDecision('a1', 's2', 0, { type: 'approval', status: 'done', description: 'Rejected shell.run', rationale: 'rejected by console' }) };
    const html = render(store, <DecisionRow row={rowOf(decisions as ReturnType<typeof twoSteps>, 'a1')} selected={false} paused={false} breakpoint={false} tally={undefined} onSelect={() => undefined} onToggle={() => undefined} />);
    expect(html).toContain('aria-label="rejected"');
    expect(html).toContain('✕');
    expect(html).not.toContain('✓');
  });

  it('marks a rejection with a cross in the details too', () => {
    const { store } = testRuntime();
    const a1 = makeDecision('a1', 's2', 0, { type: 'approval', status: 'done', description: 'Rejected shell.run', rationale: 'rejected by console' });
    store.setState({ decisions: { ...twoSteps(), a1 }, selectedDecisionId: 'a1' });
    const heading = /<h3>(.*?)<\/h3>/.exec(render(store, <DecisionDetails />))?.[1] ?? '';
    expect(heading).toContain('aria-label="rejected"');
    expect(heading).not.toContain('✓');
  });

  it('counts the calls of a model step, which plans none ahead', () => {
    const { store } = testRuntime();
    const html = render(store, <DecisionRow row={rowOf(twoSteps(), 's2')} selected={false} paused={false} breakpoint={false} tally={{ ran: 1, failed: 0 }} onSelect={() => undefined} onToggle={() => undefined} />);
    expect(html).toContain('>1 call<');
    expect(html).not.toContain('planned');
  });
});

describe('words', () => {
  it('Settings says there is no model, not "(none) (not set)"', () => {
    const { store } = testRuntime();
    store.setState({
      settingsOpen: true,
      settings: { model: null, baseUrl: null, apiKeySet: false, price: null, database: null, operator: null, notify: NOTIFY_DEFAULTS, effective: { model: null, modelSource: 'none', baseUrl: null, apiKeySource: 'none' } },
    });
    const html = render(store, <SettingsSheet />);
    expect(html).toContain('In effect: no model; base URL the provider&#x27;s default; API key not set');
    expect(html).not.toContain('(none)');
  });

  it('Settings is titled for all it holds, and its "In effect" line names the base URL and where it comes from', () => {
    const { store } = testRuntime();
    const settings = { model: 'ollama:qwen2.5-coder', baseUrl: 'http://127.0.0.1:11434/v1', apiKeySet: false, price: null, database: null, operator: null, notify: NOTIFY_DEFAULTS };
    store.setState({ settingsOpen: true, settings: { ...settings, effective: { model: settings.model, modelSource: 'settings', baseUrl: settings.baseUrl, apiKeySource: 'none' } } });
    const html = render(store, <SettingsSheet />);
    expect(html).toContain('<h2 id="settings-title">Settings</h2>');
    expect(html).toMatch(/The model and its server, the team database, your operator name, and the MCP servers/);
    expect(html).toContain('In effect: model ollama:qwen2.5-coder (from these settings); base URL http://127.0.0.1:11434/v1 (from these settings); API key not set');
    store.setState({ settings: { ...settings, effective: { model: settings.model, modelSource: 'settings', baseUrl: 'http://10.0.0.5:8000/v1', apiKeySource: 'none' } } });
    expect(render(store, <SettingsSheet />)).toContain('base URL http://10.0.0.5:8000/v1 (from the environment)');
  });

  it('event summaries count in the singular for one', () => {
    const event = makeEvent(1, 'runtime_execute_complete', { toolCallCount: 1, executionDurationMs: 12 });
    expect(eventText(event, () => undefined).text).toMatch(/^1 tool call in /);
  });
});
