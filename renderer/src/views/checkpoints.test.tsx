import { describe, expect, it } from 'vitest';
import type { CheckpointSummary, RewindPreview } from '../../../shared/checkpoints';
import type { StrategyDecision } from '../../../shared/domain';
import { formatTime } from '../lib/format';
import { makeDecision, makeEntry, makePlan, reviewOf } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { DecisionDetails } from './DecisionDetails';
import { DecisionTree } from './DecisionTree';
import { RewindDialog } from './RewindDialog';

const checkpoint = (step: number, overrides: Partial<CheckpointSummary> = {}): CheckpointSummary => ({
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
  ...overrides,
});

const tree = (): Record<string, StrategyDecision> => ({
  root: makeDecision('root', null, 0, { type: 'prompt_definition', description: 'the plan' }),
  s1: makeDecision('s1', 'root', 0, { status: 'done', description: 'Create the licence file' }),
  s2: makeDecision('s2', 'root', 1, { status: 'done', description: 'Mention the licence in the README' }),
  s3: makeDecision('s3', 'root', 2, { status: 'pending', description: 'Run the tests' }),
});

/** A plan paused after two steps (ready to run the third), with a checkpoint before each step that started. */
function ranTwoSteps(checkpoints = [checkpoint(1), checkpoint(2, { inputTokens: 1000, outputTokens: 240 })]) {
  const t = testRuntime();
  t.store.setState({
    planId: 'P1',
    plan: makePlan({ processingState: 'queued' }),
    planStatus: 'loaded',
    decisions: tree(),
    decisionsStatus: 'loaded',
    expanded: { root: true },
    checkpoints,
    checkpointsStatus: 'loaded',
  });
  return t;
}

/** The button with `testId`, whole: its attributes and its text. */
const button = (html: string, testId: string) => new RegExp(`<button[^>]*data-testid="${testId}"[^>]*>[^<]*</button>`).exec(html)?.[0] ?? '';

describe('checkpoints on the decision tree', () => {
  it('a step that has one shows when it was taken and the files changed since the one before; tokens where the model used any', () => {
    const { store } = ranTwoSteps();
    const html = render(store, <DecisionTree />);
    const row = (id: string) => html.slice(html.indexOf(`data-decision-id="${id}"`), html.indexOf('</div>', html.indexOf(`data-decision-id="${id}"`)));
    expect(row('s1')).toContain(`<span class="visually-hidden">Checkpoint at</span> ${formatTime(checkpoint(1).createdAt)} · 4 files changed</span>`);
    expect(row('s2')).toContain(`${formatTime(checkpoint(2).createdAt)} · 1 file changed · 1,240 tokens`);
    expect(row('s2')).toContain('title="Checkpoint before step 2, taken at');
    expect(row('s3')).not.toContain('tree-checkpoint');
  });

  it("a step's details show its checkpoint, and Rewind to before this step in the step's actions", () => {
    const { store } = ranTwoSteps();
    store.setState({ selectedDecisionId: 's2' });
    const html = render(store, <DecisionDetails />);
    expect(html).toContain('<h4 id="step-checkpoint-title">Checkpoint before step 2</h4>');
    expect(html).toContain('<dt>Files changed</dt><dd>1 file since the previous checkpoint</dd>');
    expect(html).toContain('<dt>Tokens by then</dt><dd>1,240 (1,000 in, 240 out)</dd>');
    expect(html).toContain('role="group" aria-label="Step 2 actions"');
    const rewind = button(html, 'rewind-step');
    expect(rewind).toContain('>Rewind to before this step</button>');
    expect(rewind).not.toContain('disabled');

    store.setState({ selectedDecisionId: 's1' });
    expect(render(store, <DecisionDetails />)).toContain('<dd>4 files in the sandbox (the first checkpoint)</dd>');
  });

  it('a step not started yet has no checkpoint: Rewind is off, and says why', () => {
    const { store } = ranTwoSteps();
    store.setState({ selectedDecisionId: 's3' });
    const html = render(store, <DecisionDetails />);
    expect(html).toContain('No checkpoint yet: one is recorded as the step starts.');
    const rewind = button(html, 'rewind-step');
    expect(rewind).toContain('disabled');
    expect(rewind).toContain('title="step 3 has not started yet: there is no checkpoint to rewind to"');
  });

  it('Rewind is off with the rule’s reason while the plan runs, and once it is partly applied', () => {
    const { store } = ranTwoSteps();
    store.setState({ selectedDecisionId: 's2', plan: makePlan({ processingState: 'processing' }) });
    const running = button(render(store, <DecisionDetails />), 'rewind-step');
    expect(running).toContain('disabled');
    expect(running).toContain('aria-description="plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before rewinding"');

    store.setState({
      plan: makePlan({ phase: 'apply', processingState: 'queued' }),
      reviewFiles: reviewOf([makeEntry('e1', 'LICENSE'), makeEntry('e2', 'NOTES.md')]).map((f) => (f.path === 'LICENSE' ? { ...f, state: 'applied' as const } : f)),
    });
    expect(button(render(store, <DecisionDetails />), 'rewind-step')).toContain('title="plan P1 is partly applied; a rewind would leave the project and the changeset apart (apply the rest, or discard it)"');
  });

  it('a rewound change is listed under its step as history, not as a link into the review', () => {
    const { store } = ranTwoSteps();
    store.setState({ selectedDecisionId: 's2', changeEntries: [makeEntry('e2', 'NOTES.md', { decisionId: 's2', operation: 'create', rewound: true, insertions: 3, deletions: 0 })] });
    const html = render(store, <DecisionDetails />);
    expect(html).toContain('<li class="rewound-change muted">create NOTES.md +3 −0 <span class="rewound-tag">rewound</span></li>');
  });
});

describe('the rewind confirmation', () => {
  const preview: RewindPreview = {
    planId: 'P1',
    toStep: 2,
    steps: 2,
    files: [
      { path: 'NOTES.md', operation: 'delete', editedByOperator: false },
      { path: 'README.md', operation: 'modify', editedByOperator: true },
      { path: 'src/greet.js', operation: 'create', editedByOperator: false },
    ],
    operatorEdits: ['README.md'],
    entriesRewound: 3,
  };

  it('lists the files the rewind changes, what it does to each, and marks the operator’s own edits', () => {
    const { store } = ranTwoSteps();
    store.setState({ rewindDialog: { toStep: 2, preview, loading: false, error: null } });
    const html = render(store, <RewindDialog />);
    expect(html).toContain('role="dialog"');
    expect(html).toContain('<h2 id="confirm-rewind-title">Rewind to before step 2?</h2>');
    expect(html).toContain('(<q>Mention the licence in the README</q>)');
    expect(html).toContain('Step 2 and the 1 step after it will be pending again');
    expect(html).toContain('Your own edits to 1 file after that point are undone too');
    expect(html).toContain('3 files will change in the sandbox');
    const files = html.slice(html.indexOf('aria-label="Files the rewind changes"'), html.indexOf('</ul>'));
    const items = [...files.matchAll(/<li[^>]*>(.*?)<\/li>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
    expect(items).toEqual(['removed NOTES.md', 'put back README.mdyour edit', 'brought back src/greet.js']);
    expect(html).toContain('The 3 changes recorded after it stay in the history, marked rewound, and are never applied.');
    expect(html).toMatch(/<button type="button" class="button danger">Rewind to before step 2<\/button>/);
  });

  it('while the host works the list out, and when it refuses, Rewind is off', () => {
    const { store } = ranTwoSteps();
    store.setState({ rewindDialog: { toStep: 3, preview: null, loading: true, error: null } });
    let html = render(store, <RewindDialog />);
    expect(html).toContain('Working out what the rewind changes…');
    expect(html).toMatch(/<button type="button" class="button danger" disabled="">Rewind to before step 3<\/button>/);

    store.setState({ rewindDialog: { toStep: 3, preview: null, loading: false, error: 'step 3 has no checkpoint: it has not started yet' } });
    html = render(store, <RewindDialog />);
    expect(html).toContain('role="alert">step 3 has no checkpoint: it has not started yet</p>');
    expect(html).toMatch(/<button type="button" class="button danger" disabled="">Rewind to before step 3<\/button>/);
  });

  it('is absent until a rewind is asked for', () => {
    const { store } = ranTwoSteps();
    expect(render(store, <RewindDialog />)).toBe('');
  });
});
