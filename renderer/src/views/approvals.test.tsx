import { describe, expect, it } from 'vitest';
import { makeApproval, makeDecision, makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { ApprovalCard } from './ApprovalCard';
import { DecisionDetails } from './DecisionDetails';
import { DecisionTree } from './DecisionTree';
import { FailureCard } from './FailureCard';
import { PlanHeader } from './PlanHeader';
import { PlanRow } from './PlanRow';
import { render } from '../test-support/render';

/** The opening tags of every button, keyed by its visible text. */
function buttons(html: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of html.matchAll(/(<button[^>]*>)([^<]*)<\/button>/g)) found.set(match[2].trim(), match[1]);
  return found;
}

const waiting = makePlan({ processingState: 'paused', waitingFor: 'approval' });

describe('the approval card', () => {
  it('shows the call, its step, its rationale, and Approve, Approve all and Reject', () => {
    const { store } = testRuntime();
    store.setState({ pendingApproval: makeApproval('A1', { args: { command: 'rm -rf cache', timeoutMs: 5000 } }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('Approval needed: shell.run');
    expect(html).toMatch(/<figcaption[^>]*>Command<\/figcaption><pre><code>rm -rf cache<\/code><\/pre>/);
    expect(html).toContain('<dt>timeoutMs</dt>');
    expect(html).toContain('Clear the cache');
    expect(html).toContain('A stale cache breaks the build');
    const found = buttons(html);
    expect([...found.keys()]).toEqual(['Approve', 'Approve all shell.run', 'Reject']);
    expect(found.get('Approve')).toContain('aria-keyshortcuts="a"');
    expect(found.get('Approve all shell.run')).toContain('aria-keyshortcuts="Shift+A"');
    // No reason typed yet: a rejection needs one.
    expect(found.get('Reject')).toContain('disabled=""');
    expect(html).toMatch(/<label for="approval-reason">Reason for rejecting<\/label>/);
  });

  it('says why a shell command waits when no rule can check it, and only then', () => {
    const { store } = testRuntime();
    const commandRule = { command: 'eval $CMD', rule: 'unanalysable: eval runs a string built at run time' };
    store.setState({ pendingApproval: makeApproval('A1', { args: { command: 'eval "$CMD"' }, commandRule }), approvalsStatus: 'loaded' });
    expect(render(store, <ApprovalCard plan={waiting} />)).toContain('Asks because</span> <code>eval $CMD</code> (unanalysable: eval runs a string built at run time)');
    store.setState({ pendingApproval: makeApproval('A1', { args: { command: 'ls' } }) });
    expect(render(store, <ApprovalCard plan={waiting} />)).not.toContain('Asks because');
  });

  it('previews the diff a write would make, with the diff rows of the changeset view', () => {
    const { store } = testRuntime();
    const diff = '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+deux\n';
    const hunks = [
      {
        header: '@@ -1,2 +1,2 @@',
        rows: [
          { kind: 'context' as const, text: 'one', oldLine: 1, newLine: 1 },
          { kind: 'del' as const, text: 'two', oldLine: 2, newLine: null },
          { kind: 'add' as const, text: 'deux', oldLine: null, newLine: 2 },
        ],
      },
    ];
    store.setState({ pendingApproval: makeApproval('A1', { tool: 'file.write', args: { path: 'notes.txt', content: 'one\ndeux\n' }, diff, hunks }) });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('aria-label="Diff preview of notes.txt"');
    expect([...html.matchAll(/data-kind="([a-z]+)"/g)].map((m) => m[1])).toEqual(['hunk', 'context', 'del', 'add']);
    expect(html).not.toContain('<figcaption');
  });

  it('says it is loading until the pending call arrives, and is absent unless the plan waits for an approval', () => {
    const { store } = testRuntime();
    expect(render(store, <ApprovalCard plan={waiting} />)).toContain('loading the call');
    store.setState({ pendingApproval: makeApproval('A1') });
    expect(render(store, <ApprovalCard plan={makePlan({ processingState: 'paused' })} />)).toBe('');
    expect(render(store, <ApprovalCard plan={makePlan({ processingState: 'processing', waitingFor: 'approval' })} />)).toBe('');
  });
});

describe('waiting for approval elsewhere in the console', () => {
  it('marks the plan in the list and in the header, apart from errors', () => {
    const { store } = testRuntime();
    const row = (overrides: Parameters<typeof makeListItem>[0]) =>
      render(store, <PlanRow plan={makeListItem(overrides)} open={false} cursor={false} now={Date.now()} onOpen={() => {}} />);
    expect(row({ processingState: 'paused', waitingFor: 'approval' })).toContain('Waiting for approval');
    expect(row({ processingState: 'paused' })).not.toContain('Waiting for approval');
    expect(row({ processingState: 'errored' })).not.toContain('Waiting for approval');
    expect(render(store, <PlanHeader plan={waiting} />)).toContain('Waiting for approval');
  });

  it('flags the waiting step in the tree, and shows who answered each approval and why', () => {
    const { store } = testRuntime();
    store.setState({
      plan: waiting,
      decisionsStatus: 'loaded',
      decisions: {
        root: makeDecision('root', null, 0),
        s1: makeDecision('s1', 'root', 0, { status: 'failed' }),
        d1: makeDecision('d1', 's1', 0, { type: 'approval', status: 'done', description: 'Rejected shell.run', rationale: 'rejected by console at …' }),
        s2: makeDecision('s2', 'root', 1),
      },
      expanded: { root: true, s1: true },
      approvals: [makeApproval('A0', { status: 'rejected', answeredBy: 'console', answeredAt: '2026-01-01T00:00:01.000Z', reason: 'deletes the fixtures' })],
      pendingApproval: makeApproval('A1', { decisionId: 's2' }),
    });
    const html = render(store, <DecisionTree />);
    expect(html).toContain('by console — deletes the fixtures');
    expect(html).toContain('aria-label="rejected"');
    expect(html).toMatch(/data-decision-id="s2".*waits for approval/);

    store.setState({ selectedDecisionId: 'd1' });
    const details = render(store, <DecisionDetails />);
    expect(details).toContain('<dt>Answer</dt><dd class="del">rejected</dd>');
    expect(details).toContain('<dt>By</dt><dd>console</dd>');
    expect(details).toContain('<dt>Reason</dt><dd>deletes the fixtures</dd>');
  });
});

describe('the failure card', () => {
  it('offers Skip step and Change profile beside Retry and Reset while the plan can still be fixed in place', () => {
    const { store } = testRuntime();
    const plan = makePlan({ processingState: 'errored', automationProfile: { ...makePlan().automationProfile, name: 'supervised' } });
    store.setState({ plan, decisions: { root: makeDecision('root', null, 0), s1: makeDecision('s1', 'root', 0, { status: 'failed' }) } });
    const html = render(store, <FailureCard plan={plan} />);
    const found = buttons(html);
    expect([...found.keys()]).toEqual(['Retry from the failed step', 'Mark ready to run', 'Skip step', 'Change profile']);
    // The current profile is selected: nothing to change to yet.
    expect(found.get('Change profile')).toContain('disabled=""');
    expect(html).toContain('supervised (current) — approve shell.run, file.delete, file.rename');
    expect(html).toContain('restricted — no approvals; shell refused; auto-retry 3');
  });

  it('lists the next steps as the commands that take them, and makes the first one the primary button', () => {
    const { store } = testRuntime();
    const plan = makePlan({ processingState: 'errored' });
    store.setState({
      plan,
      decisions: { root: makeDecision('root', null, 0), s1: makeDecision('s1', 'root', 0, { status: 'failed' }) },
      recoveryHints: [
        { action: 'skip', args: { step: 1 }, message: 'The operator rejected a call of this step.' },
        { action: 'edit_step', args: { step: 1 }, message: "Replace the failed step's tool calls" },
      ],
    });
    const html = render(store, <FailureCard plan={plan} />);
    expect(html).toContain('<code data-testid="failure-command">agents plan skip P1 --step 1</code>');
    expect(html).toContain('<code>agents plan edit-step P1 --step 1 --file step.yaml</code>');
    const found = buttons(html);
    expect(found.get('Skip step')).toContain('class="button primary"');
    expect(found.get('Retry from the failed step')).toContain('class="button"');
  });

  it('offers no recovery in place once the plan reached apply', () => {
    const { store } = testRuntime();
    const html = render(store, <FailureCard plan={makePlan({ processingState: 'errored', phase: 'apply' })} />);
    expect(html).not.toContain('Skip step');
    expect(html).not.toContain('Change profile');
  });
});

describe('the plan header', () => {
  it("shows the plan's invariants and the project's rules", () => {
    const { store } = testRuntime();
    const plan = makePlan({
      invariants: ['Keep greet() unchanged'],
      projectInvariants: { protect: ['secrets/**'], denyCommands: ['curl *'], allowCommands: ['npm test'], notes: ['The README is user-facing'] },
    });
    const html = render(store, <PlanHeader plan={plan} />);
    expect(html).toContain('aria-label="Invariants"');
    for (const text of ['Keep greet() unchanged', 'Protected paths', '<code>secrets/**</code>', 'Denied commands', '<code>curl *</code>', 'Allowed commands (no others)', '<code>npm test</code>', 'The README is user-facing']) {
      expect(html).toContain(text);
    }
    expect(render(store, <PlanHeader plan={makePlan()} />)).not.toContain('aria-label="Invariants"');
  });
});
