import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StoreContext } from '../store/react';
import type { AppStore } from '../store/types';
import { makeDecision, makeEntry, makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { App } from './App';
import { DecisionDetails } from './DecisionDetails';
import { DiffViewer } from './DiffViewer';
import { FailureCard } from './FailureCard';
import { PlanHeader } from './PlanHeader';

/** Server rendering reads a store's initial state; render the current one instead. */
const render = (store: AppStore, node: ReactNode) =>
  renderToStaticMarkup(<StoreContext.Provider value={{ ...store, getInitialState: store.getState }}>{node}</StoreContext.Provider>);

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
    const html = render(store, <PlanHeader plan={makePlan({ processingState: 'paused' })} />);
    expect(attrs(html, 'plan-header', 'data-plan-state')).toEqual(['paused']);
    expect(enabledActions(html)).toEqual(['step', 'continue', 'discard']);
  });
});

describe('the decision details', () => {
  it('say how each command ran: confined by bubblewrap, or not confined', () => {
    const { store } = testRuntime();
    const call = { planId: 'P1', decisionId: 's1', tool: 'shell.run', args: { command: 'make' }, ok: true, result: {}, error: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 5 };
    store.setState({
      decisions: { s1: makeDecision('s1', 'root', 0, { toolCalls: [{ tool: 'shell.run', args: { command: 'make' } }, { tool: 'shell.run', args: { command: 'make' } }] }) },
      invocations: [
        { ...call, id: 'I1', confinement: 'bwrap' },
        { ...call, id: 'I2', confinement: 'none' },
      ],
      selectedDecisionId: 's1',
    });
    const html = render(store, <DecisionDetails />);
    expect(html.match(/data-testid="call-confinement">([^<]*)</g)).toEqual([
      'data-testid="call-confinement">confined by bubblewrap<',
      'data-testid="call-confinement">not confined<',
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
      command: 'agents plan retry P1',
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

describe('the diff viewer', () => {
  it('renders unified and side-by-side rows', () => {
    const { store } = testRuntime();
    const entry = makeEntry('e1', 'src/a.ts');
    store.setState({
      changeEntries: [entry],
      selectedEntryId: 'e1',
      diffs: {
        e1: {
          status: 'loaded',
          data: {
            entry,
            hunks: [
              {
                header: '@@ -1 +1 @@',
                rows: [
                  { kind: 'del', text: 'const a = 1;', oldLine: 1, newLine: null },
                  { kind: 'add', text: 'const a = 2;', oldLine: null, newLine: 1 },
                ],
              },
            ],
          },
        },
      },
    });
    const unified = render(store, <DiffViewer />);
    expect(attrs(unified, 'diff-viewer', 'data-mode')).toEqual(['unified']);
    expect(attrs(unified, 'diff-line', 'data-kind')).toEqual(['hunk', 'del', 'add']);
    expect(unified).toContain('<span class="tok-kw">const</span>');
    store.getState().setDiffMode('split');
    expect(attrs(render(store, <DiffViewer />), 'diff-line', 'data-kind')).toEqual(['hunk', 'change']);
  });

  it('marks a binary file instead of showing it', () => {
    const { store } = testRuntime();
    store.setState({ changeEntries: [makeEntry('e1', 'logo.png', { binary: true })], selectedEntryId: 'e1' });
    const html = render(store, <DiffViewer />);
    expect(attrs(html, 'diff-viewer', 'data-state')).toEqual(['binary']);
    expect(html).toContain('data-testid="diff-binary"');
  });

  it('collapses a very large diff until asked', () => {
    const { store } = testRuntime();
    const entry = makeEntry('e1', 'big.txt');
    const rows = Array.from({ length: 3000 }, (_, i) => [
      { kind: 'del' as const, text: `${i}`, oldLine: i + 1, newLine: null },
      { kind: 'add' as const, text: `${i}!`, oldLine: null, newLine: i + 1 },
    ]).flat();
    const hunks = [{ header: '@@ -1,3000 +1,3000 @@', rows }];
    store.setState({ changeEntries: [entry], selectedEntryId: 'e1', diffs: { e1: { status: 'loaded', data: { entry, hunks } } } });
    const html = render(store, <DiffViewer />);
    expect(html).toContain('data-testid="diff-expand"');
    expect(html).not.toContain('data-testid="diff-line"');
  });
});

describe('the app', () => {
  it('shows designed empty and loading states', () => {
    const { store } = testRuntime();
    expect(render(store, <App hasToken />)).toContain('Loading plans');
    store.setState({ plansStatus: 'loaded' });
    const html = render(store, <App hasToken />);
    expect(html).toContain('No plans yet — create one from a plan file.');
    expect(html).toContain('data-testid="create-plan"');
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
