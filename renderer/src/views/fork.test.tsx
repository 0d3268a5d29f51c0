import { describe, expect, it } from 'vitest';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import type { StrategyDecision } from '../../../shared/domain';
import type { PlanCompare } from '../../../shared/plan-compare';
import { makeDecision, makePlan, makeListItem } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { CompareView } from './CompareView';
import { DecisionDetails } from './DecisionDetails';
import { ForkDialog } from './ForkDialog';
import { PlanLineage } from './PlanLineage';

const checkpoint = (step: number): CheckpointSummary => ({
  id: `C${step}`,
  planId: 'P1',
  step,
  decisionId: `s${step}`,
  description: `Step ${step}`,
  createdAt: `2026-01-01T10:0${step}:30.000Z`,
  filesChanged: step === 1 ? 4 : 1,
  entries: step - 1,
  inputTokens: 0,
  outputTokens: 0,
});

const tree = (): Record<string, StrategyDecision> => ({
  root: makeDecision('root', null, 0, { type: 'prompt_definition', description: 'the plan' }),
  s1: makeDecision('s1', 'root', 0, { status: 'done', description: 'Create the licence file' }),
  s2: makeDecision('s2', 'root', 1, { status: 'done', description: 'Mention the licence in the README' }),
  s3: makeDecision('s3', 'root', 2, { status: 'pending', description: 'Run the tests' }),
});

function ranTwoSteps() {
  const t = testRuntime();
  t.store.setState({
    planId: 'P1',
    plan: makePlan({ processingState: 'queued' }),
    planStatus: 'loaded',
    decisions: tree(),
    decisionsStatus: 'loaded',
    expanded: { root: true },
    checkpoints: [checkpoint(1), checkpoint(2)],
    checkpointsStatus: 'loaded',
  });
  return t;
}

const button = (html: string, testId: string) => new RegExp(`<button[^>]*data-testid="${testId}"[^>]*>[^<]*</button>`).exec(html)?.[0] ?? '';

describe('Fork from here', () => {
  it("sits beside Rewind in the step's actions, on where the step has a checkpoint and off with the rule's reason while the plan runs", () => {
    const { store } = ranTwoSteps();
    store.setState({ selectedDecisionId: 's2' });
    let html = render(store, <DecisionDetails />);
    const group = html.slice(html.indexOf('aria-label="Step 2 actions"'));
    expect(group.indexOf('data-testid="rewind-step"')).toBeLessThan(group.indexOf('data-testid="fork-step"'));
    expect(button(html, 'fork-step')).toContain('>Fork from here</button>');
    expect(button(html, 'fork-step')).not.toContain('disabled');

    store.setState({ selectedDecisionId: 's3' });
    html = render(store, <DecisionDetails />);
    expect(button(html, 'fork-step')).toContain('title="step 3 has not started yet: there is no checkpoint to fork from"');
    expect(button(html, 'fork-step')).toContain('disabled');

    store.setState({ selectedDecisionId: 's2', plan: makePlan({ processingState: 'processing' }) });
    html = render(store, <DecisionDetails />);
    expect(button(html, 'fork-step')).toContain('aria-description="plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before forking"');
    expect(button(html, 'fork-step')).toContain('disabled');
  });

  it('the confirmation says what the fork starts from and shares, and offers the built-in profiles', () => {
    const { store } = ranTwoSteps();
    store.setState({ forkDialog: { atStep: 2, forking: false, error: null } });
    const html = render(store, <ForkDialog />);
    expect(html).toContain('<h2 id="confirm-fork-title">Fork from step 2?</h2>');
    expect(html).toContain('(<q>Mention the licence in the README</q>)');
    expect(html).toContain('The 1 step before it is shared with this plan, not run again.');
    expect(html).toContain('press Run to run it from step 2');
    expect(html.replace(/<!-- -->/g, '')).toContain(', after the steps before it changed 1 file.');
    const options = [...html.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    expect(options).toEqual(['', 'manual', 'restricted', 'supervised', 'trusted', 'full-auto']);
    expect(html).toContain('<label for="fork-profile">Automation profile</label>');
    // A scripted plan has no model to change.
    expect(html).not.toContain('fork-model');
    expect(html).toMatch(/<button type="submit" class="button primary">Fork from step 2<\/button>/);

    // An agent plan's fork may run on another model: empty keeps this plan's.
    store.setState({ plan: makePlan({ processingState: 'queued', agent: { model: 'openai:gpt-4o', maxTurnsPerStep: 8, maxOutputTokens: 4096 } }) });
    const agent = render(store, <ForkDialog />);
    expect(agent).toContain('<label for="fork-model">Model</label>');
    expect(agent).toContain('placeholder="Same as this plan (openai:gpt-4o)"');

    store.setState({ forkDialog: { atStep: 2, forking: false, error: 'Fork failed: no checkpoint' } });
    expect(render(store, <ForkDialog />)).toContain('role="alert" data-testid="fork-error">Fork failed: no checkpoint</p>');
  });
});

describe('the plans a fork names', () => {
  it('a fork links to its origin, and the origin to its forks: each opens the plan, or compares with it', () => {
    const { store } = ranTwoSteps();
    store.setState({ plans: [makeListItem({ id: 'P0', name: 'first-try' })] });
    const fork = makePlan({ forkedFrom: { planId: 'P0', atStep: 2, checkpointAt: '2026-01-01T10:00:00.000Z', by: 'alice', at: '2026-01-01T11:00:00.000Z' } });
    let html = render(store, <PlanLineage plan={fork} />);
    expect(html).toContain('aria-label="Open plan first-try (P0)">first-try</button>');
    expect(html.replace(/<!-- -->/g, '')).toMatch(/>first-try<\/button> at step 2 <button[^>]*>Compare with first-try<\/button>/);
    const origin = makePlan({ forks: [{ planId: 'P7', atStep: 3, by: 'alice', at: '2026-01-01T11:00:00.000Z' }] });
    html = render(store, <PlanLineage plan={origin} />);
    expect(html).toContain('Fork at step 3: <button');
    expect(html).toContain('>Compare with P7</button>');
    expect(render(store, <PlanLineage plan={makePlan()} />)).toBe('');
  });
});

describe('the compare view', () => {
  const side = (planId: string, over: Partial<PlanCompare['a']> = {}): PlanCompare['a'] => ({
    planId,
    name: planId === 'P1' ? 'add-license' : 'add-license-fork',
    status: 'Ready to apply',
    files: [],
    stepsDone: 3,
    steps: 3,
    toolCalls: 4,
    inputTokens: 1000,
    outputTokens: 200,
    cost: null,
    durationMs: 2500,
    ...over,
  });
  const data: PlanCompare = {
    projectPath: '/work/p',
    a: side('P1', { files: [{ path: 'LICENSE', oldPath: null, operation: 'create', binary: false, insertions: 3, deletions: 0 }] }),
    b: side('P2', { toolCalls: 2, cost: 0.0123 }),
    onlyA: ['LICENSE'],
    onlyB: ['NOTES.md'],
    both: [
      { path: 'README.md', same: false, binary: false, insertions: 1, deletions: 1, diff: '', hunks: [{ header: '@@ -1 +1 @@', rows: [{ kind: 'del', text: 'MIT', oldLine: 1, newLine: null }, { kind: 'add', text: 'Apache-2.0', oldLine: null, newLine: 1 }] }] },
      { path: 'src/a.js', same: true, binary: false, insertions: 0, deletions: 0, diff: null, hunks: null },
    ],
  };

  it('sets the two runs side by side: numbers, files only one changed, and the diff of a file both changed, drawn by the review’s diff lines', () => {
    const { store } = ranTwoSteps();
    store.setState({ compareView: { with: 'P2', status: 'loaded', data, error: null }, plan: makePlan({ forks: [{ planId: 'P2', atStep: 2, by: 'alice', at: '2026-01-01T11:00:00.000Z' }] }) });
    const html = render(store, <CompareView />);
    expect(html).toContain('role="dialog"');
    expect(html).toContain('<h2 id="compare-title" title="add-license (P1) with add-license-fork (P2)">Compare add-license with its fork at step 2</h2>');
    expect(html).toContain('Its fork at step 2 <span class="muted">P2</span>');
    const row = (label: string) => new RegExp(`<th scope="row">${label}</th><td>([^<]*)</td><td>([^<]*)</td>`).exec(html)?.slice(1);
    expect(row('Steps done')).toEqual(['3 of 3', '3 of 3']);
    expect(row('Tool calls')).toEqual(['4', '2']);
    expect(row('Tokens')).toEqual(['1,200 (1,000 in, 200 out)', '1,200 (1,000 in, 200 out)']);
    expect(row('Cost')).toEqual(['no price set', '$0.0123']);
    expect(row('Time running')).toEqual(['2.5 s', '2.5 s']);
    expect(html).toContain('aria-label="Only this plan changed"');
    expect(html).toContain('aria-label="Only its fork at step 2 changed"');
    expect(html).toContain('<code>LICENSE</code>');
    expect(html).toContain('<code>NOTES.md</code>');
    expect(html).toContain('README.md · differs +1 −1');
    expect(html).toContain('src/a.js · same result');
    expect(html).toContain('aria-label="Difference in README.md"');
    expect(html).toContain('aria-label="Diff of README.md"');
    expect(html).toContain('role="group" aria-label="Diff layout"');
  });

  it('says so while loading and when the host refuses', () => {
    const { store } = ranTwoSteps();
    store.setState({ compareView: { with: 'P9', status: 'loading', data: null, error: null } });
    expect(render(store, <CompareView />)).toContain('Comparing the two runs…');
    store.setState({ compareView: { with: 'P9', status: 'error', data: null, error: 'plans P1 and P9 are over different projects' } });
    expect(render(store, <CompareView />)).toContain('role="alert">Couldn&#x27;t compare: plans P1 and P9 are over different projects</p>');
  });
});
