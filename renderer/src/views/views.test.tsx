import { describe, expect, it } from 'vitest';
import type { ReviewFile } from '../../../shared/contract';
import type { DiffHunk } from '../../../shared/changes';
import { makeDecision, makeEntry, makeListItem, makePlan, reviewOf } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { App } from './App';
import { DecisionDetails } from './DecisionDetails';
import { DiffViewer } from './DiffViewer';
import { FailureCard } from './FailureCard';
import { PlanHeader } from './PlanHeader';
import { render } from '../test-support/render';

/** The attribute values of every element matching `data-testid="<id>"`, in order. */
function attrs(html: string, testId: string, attr: string): string[] {
  const tags = html.match(new RegExp(`<[^>]*data-testid="${testId}"[^>]*>`, 'g')) ?? [];
  return tags.map((tag) => new RegExp(`${attr}="([^"]*)"`).exec(tag)?.[1] ?? '');
}

const enabledActions = (html: string) =>
  (html.match(/<button[^>]*data-testid="action-[a-z]+"[^>]*>/g) ?? []).filter((tag) => !tag.includes('disabled=""')).map((tag) => /action-([a-z]+)/.exec(tag)![1]);

describe('the plan header', () => {
  it('reflects the plan state for tests to wait on, and enables only what the state allows', () => {
    const { store } = testRuntime();
    const plan = makePlan({ processingState: 'paused' });
    store.setState({ planId: plan.id, plan });
    const html = render(store, <PlanHeader plan={plan} />);
    expect(attrs(html, 'plan-header', 'data-plan-state')).toEqual(['paused']);
    // A run paused in step mode still holds the plan: the engine refuses to discard it until it stops.
    expect(enabledActions(html)).toEqual(['step', 'continue']);
    expect(attrs(html, 'action-discard', 'title')).toEqual(['plan P1 is Paused; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before discarding']);
  });
});

describe("the plan header's trace", () => {
  const traceId = '0af7651916cd43dd8448eb211c80319c';

  it('shows the run\'s trace id with Copy, and Open trace to the viewer\'s address when traceUrl is set', () => {
    const { store } = testRuntime();
    store.setState({ planTrace: { traceId, url: `http://localhost:16686/trace/${traceId}` } });
    const html = render(store, <PlanHeader plan={makePlan({ processingState: 'queued', phase: 'apply' })} />);
    expect(attrs(html, 'plan-trace', 'data-trace-id')).toEqual([traceId]);
    expect(html).toContain(`>${traceId}</code>`);
    expect(attrs(html, 'copy-trace-id', 'aria-description')).toEqual(['Copy the trace id']);
    expect(attrs(html, 'open-trace', 'href')).toEqual([`http://localhost:16686/trace/${traceId}`]);
    expect(attrs(html, 'open-trace', 'rel')).toEqual(['noreferrer noopener']);
  });

  it('has no Open trace without traceUrl, and nothing before the plan first ran', () => {
    const { store } = testRuntime();
    store.setState({ planTrace: { traceId, url: null } });
    const html = render(store, <PlanHeader plan={makePlan({ processingState: 'queued', phase: 'apply' })} />);
    expect(attrs(html, 'plan-trace', 'data-trace-id')).toEqual([traceId]);
    expect(html).not.toContain('Open trace');
    store.setState({ planTrace: null });
    expect(render(store, <PlanHeader plan={makePlan()} />)).not.toContain('data-testid="plan-trace"');
  });
});

describe('the decision details', () => {
  it('say how each command ran: confined by bubblewrap as nobody, or not confined', () => {
    const { store } = testRuntime();
    const call = { planId: 'P1', decisionId: 's1', tool: 'shell.run', args: { command: 'make' }, ok: true, result: {}, error: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 5 };
    store.setState({
      decisions: { s1: makeDecision('s1', 'root', 0, { toolCalls: [{ tool: 'shell.run', args: { command: 'make' } }, { tool: 'shell.run', args: { command: 'make' } }] }) },
      decisionCalls: {
        s1: {
          status: 'loaded',
          invocations: [
            { ...call, id: 'I1', confinement: 'bwrap-nobody' },
            { ...call, id: 'I2', confinement: 'none' },
            { ...call, id: 'I3', confinement: 'bwrap' },
          ],
          startedArgs: null,
          error: null,
        },
      },
      selectedDecisionId: 's1',
    });
    const html = render(store, <DecisionDetails />);
    expect(html.match(/data-testid="call-confinement">([^<]*)</g)).toEqual([
      'data-testid="call-confinement">confined by bubblewrap, as nobody<',
      'data-testid="call-confinement">not confined<',
      // As an older version recorded it.
      'data-testid="call-confinement">confined by bubblewrap<',
    ]);
  });
});

describe('the failure card', () => {
  it('shows the category, hint, command and attempts of an errored plan', () => {
    const { store } = testRuntime();
    const error = {
      id: 'E1',
      planId: 'P1',
      phase: 'execute' as const,
      decisionId: 's1',
      attempt: 1,
      category: 'tool' as const,
      retriable: false,
      recoveryAction: 'retry' as const,
      message: 'find text not found',
      stack: null,
      hint: 'Fix the file, then retry',
      next: { action: 'retry' as const, args: {}, message: 'Fix the file, then retry' },
      outcome: 'gave_up' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    store.setState({
      errors: [error, { ...error, id: 'E0', decisionId: 'other' }],
      decisions: { s1: makeDecision('s1', 'root', 0, { status: 'failed', description: 'Edit the README' }) },
      changeEntries: [makeEntry('c1', 'docs/a.md', { decisionId: 's1' })],
    });
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'errored', errorMessage: 'file.edit failed' })} />);
    expect(attrs(html, 'failure-card', 'data-category')).toEqual(['tool']);
    expect(html).toContain('Step failed: Edit the README');
    expect(html).toContain('Fix the file, then retry');
    expect(html).toContain('agents plan retry P1');
    expect(attrs(html, 'failure-attempt', 'data-attempt')).toEqual(['1']);
    expect(html).toContain('docs/a.md');
    expect(attrs(html, 'failure-retry', 'data-testid')).toHaveLength(1);
  });

  it('counts down to the next automatic retry while the plan runs', () => {
    const { store } = testRuntime();
    store.setState({ nextRetry: { at: Date.now() + 5000, attempt: 2, decisionId: null, error: 'busy' } });
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'processing' })} />);
    expect(attrs(html, 'failure-card', 'data-retrying')).toEqual(['true']);
    expect(html).toMatch(/retrying automatically in [45] s/);
  });

  it('is absent for a healthy plan', () => {
    const { store } = testRuntime();
    expect(render(store, <FailureCard plan={makePlan()} />)).toBe('');
  });
});

/** The values of `attr` on every element whose opening tag contains `marker`, in order. */
function tagAttrs(html: string, marker: string, attr: string): string[] {
  const tags = (html.match(/<[^>]+>/g) ?? []).filter((tag) => tag.includes(marker));
  return tags.map((tag) => new RegExp(`${attr}="([^"]*)"`).exec(tag)?.[1] ?? '');
}

describe('the diff viewer', () => {
  const file = (path: string, extra: Partial<ReviewFile> = {}): ReviewFile => ({ ...reviewOf([makeEntry('e1', path)])[0], ...extra });
  const oneLine = (header: string, line: number, before: string, after: string): DiffHunk => ({
    header,
    rows: [
      { kind: 'del', text: before, oldLine: line, newLine: null },
      { kind: 'add', text: after, oldLine: null, newLine: line },
    ],
  });
  const loaded = (f: ReviewFile, hunks: DiffHunk[]) => ({ [f.path]: { status: 'loaded' as const, key: 'k', data: { file: f, hunks } } });

  it('renders unified and side-by-side rows, each saying what happened to the line', () => {
    const { store } = testRuntime();
    const f = file('src/a.ts');
    const hunks: DiffHunk[] = [
      {
        header: '@@ -1 +1 @@',
        rows: [
          { kind: 'del', text: 'const a = 1;', oldLine: 1, newLine: null },
          { kind: 'add', text: 'const a = 2;', oldLine: null, newLine: 1 },
        ],
      },
    ];
    store.setState({ reviewFiles: [f], selectedPath: f.path, fileDiffs: loaded(f, hunks) });
    const unified = render(store, <DiffViewer />);
    expect(tagAttrs(unified, 'class="diff-viewer', 'data-mode')).toEqual(['unified']);
    expect(tagAttrs(unified, 'role="listitem"', 'data-kind')).toEqual(['hunk', 'del', 'add']);
    expect(unified).toContain('removed, line 1: ');
    expect(unified).toContain('added, line 1: ');
    expect(unified).toContain('<span class="tok-kw">const</span>');
    store.getState().setDiffMode('split');
    expect(tagAttrs(render(store, <DiffViewer />), 'role="listitem"', 'data-kind')).toEqual(['hunk', 'change']);
  });

  it('offers a checkbox per hunk while the plan can be applied', () => {
    const { store } = testRuntime();
    const hunks = [1, 2].map((index) => ({ index, header: '@@', insertions: 1, deletions: 1, key: `k${index}`, applied: index === 1 }));
    const f = file('a.txt', { hunks, units: 2, appliedHunks: [1], state: 'partial' });
    store.setState({ plan: makePlan({ phase: 'apply', projectPath: '/p' }), reviewFiles: [f], selectedPath: f.path, fileDiffs: loaded(f, [oneLine('@@ -1 +1 @@', 1, 'a', 'b'), oneLine('@@ -9 +9 @@', 9, 'c', 'd')]) });
    const html = render(store, <DiffViewer />);
    expect(html).toContain('Hunk 1 of 2, applied');
    expect(html).toMatch(/<label class="hunk-label"><input type="checkbox" checked=""\/> Hunk 2 of 2<\/label>/);
  });

  it('marks a binary file instead of showing it', () => {
    const { store } = testRuntime();
    const f = file('logo.png', { binary: true });
    store.setState({ reviewFiles: [f], selectedPath: f.path });
    const html = render(store, <DiffViewer />);
    expect(tagAttrs(html, 'class="diff-viewer', 'data-state')).toEqual(['binary']);
    expect(html).toContain('Binary file');
  });

  it('collapses a very large diff until asked', () => {
    const { store } = testRuntime();
    const f = file('big.txt');
    const rows = Array.from({ length: 3000 }, (_, i) => [
      { kind: 'del' as const, text: `${i}`, oldLine: i + 1, newLine: null },
      { kind: 'add' as const, text: `${i}!`, oldLine: null, newLine: i + 1 },
    ]).flat();
    store.setState({ reviewFiles: [f], selectedPath: f.path, fileDiffs: loaded(f, [{ header: '@@ -1,3000 +1,3000 @@', rows }]) });
    const html = render(store, <DiffViewer />);
    expect(html).toContain('Show the diff');
    expect(html).not.toContain('role="listitem"');
  });
});

describe('the app', () => {
  it('shows designed empty and loading states', () => {
    const { store } = testRuntime();
    expect(render(store, <App hasToken />)).toContain('Loading plans');
    store.setState({ plansStatus: 'loaded' });
    const html = render(store, <App hasToken />);
    expect(html).toContain('No plans yet — create one from a plan file.');
    expect(html).toContain('>Create plan</button>');
  });

  it('renders only the visible part of a long plan list', () => {
    const { store } = testRuntime();
    const plans = Array.from({ length: 5000 }, (_, i) => makeListItem({ id: `P${i}`, name: `plan ${i}` }));
    store.setState({ plans, plansStatus: 'loaded' });
    const html = render(store, <App hasToken />);
    const rows = attrs(html, 'plan-row', 'data-plan-id').length;
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(40);
  });
});
