import { describe, expect, it } from 'vitest';
import { bridgeFailure } from '../../../shared/contract';
import type { DiffHunk } from '../../../shared/changes';
import { baseFromHunks, failedFilePath } from '../lib/sandbox-edit';
import { FakeBridge, makeDecision, makeEntry, makePlan, reviewOf } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { ChangesetView } from './ChangesetView';
import { DiffViewer } from './DiffViewer';
import { FailureCard } from './FailureCard';

const SANDBOX = '/data/sandboxes/P1';
const README_NOW = '# Demo\n\nGreets people.\n\n## Configuration\n\nSee docs/configuration.md.\n';
/** README.md's net change: the section appended after line 3. */
const README_HUNKS: DiffHunk[] = [
  {
    header: '@@ -3,0 +4,4 @@',
    rows: [
      { kind: 'add', text: '', oldLine: null, newLine: 4 },
      { kind: 'add', text: '## Configuration', oldLine: null, newLine: 5 },
      { kind: 'add', text: '', oldLine: null, newLine: 6 },
      { kind: 'add', text: 'See docs/configuration.md.', oldLine: null, newLine: 7 },
    ],
  },
];

describe('the base of a file, rebuilt from its text now and its net change', () => {
  it('undoes added, removed and replaced lines, and keeps the lines outside the hunks', () => {
    expect(baseFromHunks(README_NOW, README_HUNKS)).toBe('# Demo\n\nGreets people.\n');
    const hunks: DiffHunk[] = [
      {
        header: '@@ -2,3 +2,3 @@',
        rows: [
          { kind: 'context', text: 'b', oldLine: 2, newLine: 2 },
          { kind: 'del', text: 'c', oldLine: 3, newLine: null },
          { kind: 'add', text: 'C', oldLine: null, newLine: 3 },
          { kind: 'context', text: 'd', oldLine: 4, newLine: 4 },
        ],
      },
      { header: '@@ -7 +6,0 @@', rows: [{ kind: 'del', text: 'g', oldLine: 7, newLine: null }] },
    ];
    expect(baseFromHunks('a\nb\nC\nd\ne\nf\n', hunks)).toBe('a\nb\nc\nd\ne\nf\ng\n');
  });

  it('follows the newline at the end of either side', () => {
    const hunks: DiffHunk[] = [
      {
        header: '@@ -1 +1 @@',
        rows: [
          { kind: 'del', text: 'x', oldLine: 1, newLine: null },
          { kind: 'note', text: '\\ No newline at end of file', oldLine: null, newLine: null },
          { kind: 'add', text: 'x', oldLine: null, newLine: 1 },
        ],
      },
    ];
    expect(baseFromHunks('x\n', hunks)).toBe('x');
  });

  it('gives up when the text no longer fits the hunks', () => {
    expect(baseFromHunks('something else\n', README_HUNKS)).toBeNull();
  });
});

describe('the file a failure is about', () => {
  const call = { planId: 'P1', ok: false, result: undefined, error: { name: 'ToolError', message: 'no match' }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1 };
  it("is the failed call's path, else the path the error names", () => {
    const invocations = [
      { ...call, id: 'I1', decisionId: 's1', tool: 'file.write', args: { path: 'docs/a.md' }, ok: true, error: null },
      { ...call, id: 'I2', decisionId: 's2', tool: 'file.edit', args: { path: 'README.md', find: 'x', replace: 'y' } },
    ];
    expect(failedFilePath(invocations, 's2', {})).toBe('README.md');
    expect(failedFilePath(invocations, 's1', { path: 'notes.txt' })).toBe('notes.txt');
    expect(failedFilePath([], null, {})).toBeNull();
  });
});

/** An errored broken-docs plan whose sandbox has README.md changed by the plan and the operator. */
function erroredPlan(fake = new FakeBridge()) {
  fake.plan = makePlan({ processingState: 'errored', sandboxRefs: [SANDBOX], errorMessage: 'file.edit failed: "## Configuration" not found in README.md' });
  fake.entries = [makeEntry('C1', 'README.md', { insertions: 4, deletions: 0 })];
  fake.on('plans.reviewDiff', (r) => ({ file: reviewOf(fake.entries).find((f) => f.path === r.path)!, hunks: README_HUNKS }));
  fake.on('plans.readFile', (r) => ({ path: r.path, content: r.path === 'README.md' ? README_NOW : 'export const x = 1;\n', binary: false }));
  return testRuntime(fake);
}

describe('editing a file of the sandbox', () => {
  it('opens the file on the Changes tab with the base as the original side, and saves what was typed', async () => {
    const t = erroredPlan();
    t.state().openPlan('P1');
    await t.settle();
    await t.state().openEditor('README.md');
    expect(t.state().tab).toBe('changes');
    expect(t.state().editor).toEqual({ path: 'README.md', status: 'ready', original: '# Demo\n\nGreets people.\n', content: README_NOW, error: null });

    const html = render(t.store, <ChangesetView />);
    expect(html).toContain('aria-label="Editing README.md"');
    expect(html).toMatch(/<button[^>]*aria-keyshortcuts="Control\+S Meta\+S"[^>]*>Save<\/button>/);
    expect(html).toMatch(/<button[^>]*aria-keyshortcuts="Escape"[^>]*>Cancel<\/button>/);

    const saved = { ...makeEntry('C2', 'README.md', { origin: 'operator' as const }) };
    t.fake.on('plans.saveFile', () => ({ entry: saved }));
    expect(await t.state().saveEditor(`${README_NOW}more\n`)).toBe(true);
    expect(t.fake.callsTo('plans.saveFile')).toEqual([{ planId: 'P1', path: 'README.md', content: `${README_NOW}more\n` }]);
    expect(t.state().editor).toBeNull();
    expect(t.state().selectedPath).toBe('README.md');
    expect(render(t.store, <DiffViewer />)).toContain('Saved README.md in the sandbox: the changes show it as edited by you.');
  });

  it('keeps the editor and what was typed when the host refuses, with one line saying why', async () => {
    const t = erroredPlan();
    t.state().openPlan('P1');
    await t.settle();
    await t.state().openEditor('README.md');
    t.fake.on('plans.saveFile', () => {
      throw bridgeFailure({ code: 'wrong_state', message: 'plan P1 is processing; save when it has stopped' });
    });
    expect(await t.state().saveEditor('typed')).toBe(false);
    expect(t.state().editor).toMatchObject({ path: 'README.md', status: 'ready', error: "Couldn't save README.md: plan P1 is processing; save when it has stopped" });
    expect(render(t.store, <ChangesetView />)).toMatch(/role="alert">Couldn&#x27;t save README.md: plan P1 is processing; save when it has stopped</);
    t.state().closeEditor();
    expect(t.state().editor).toBeNull();
  });

  it('opens a file the plan has not changed as it is, and says so when a path is not in the sandbox', async () => {
    const t = erroredPlan();
    t.state().openPlan('P1');
    await t.settle();
    await t.state().openEditor('src/greet.js');
    expect(t.state().editor).toMatchObject({ path: 'src/greet.js', status: 'ready', original: 'export const x = 1;\n', content: 'export const x = 1;\n' });
    t.fake.on('plans.readFile', () => {
      throw bridgeFailure({ code: 'invalid_request', message: 'path: there is no file "nope.txt" in the sandbox', field: 'path' });
    });
    await t.state().openEditor('nope.txt');
    expect(t.state().editor).toMatchObject({ status: 'failed', error: 'Couldn\'t open nope.txt: path: there is no file "nope.txt" in the sandbox' });
  });

  it('offers Edit on the open diff and a path to open while the sandbox can change, not once the plan is complete', async () => {
    const t = erroredPlan();
    t.state().openPlan('P1');
    await t.settle();
    let html = render(t.store, <ChangesetView />);
    expect(html).toMatch(/<button[^>]*aria-label="Edit README.md"[^>]*>Edit<\/button>/);
    expect(html).toContain('Open a file of the sandbox…');
    t.store.setState({ plan: { ...t.state().plan!, processingState: 'complete' } });
    html = render(t.store, <ChangesetView />);
    expect(html).not.toContain('Edit README.md');
    expect(html).not.toContain('Open a file of the sandbox…');
  });
});

describe('the failure card', () => {
  it('offers, beside the sandbox, to edit the file the failed call was about, and Open folder in the desktop app only', async () => {
    const fake = new FakeBridge();
    const t = erroredPlan(fake);
    fake.decisions = [makeDecision('root', null, 0), makeDecision('s2', 'root', 1, { status: 'failed', description: 'Link the notes' })];
    fake.invocations = [
      { id: 'I2', planId: 'P1', decisionId: 's2', tool: 'file.edit', args: { path: 'README.md', find: '## Configuration', replace: 'x' }, ok: false, error: { name: 'ToolError', message: 'not found' }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1 },
    ];
    t.state().openPlan('P1');
    await t.settle();
    // What the card's effect does when it shows (a static render runs no effects): read the failed step's calls.
    t.state().loadDecisionCalls('s2');
    await t.settle();
    expect(fake.callsTo('plans.invocationsForDecision')).toEqual([{ planId: 'P1', decisionId: 's2' }]);
    expect(fake.callsTo('plans.invocations')).toEqual([]);
    const html = render(t.store, <FailureCard plan={t.state().plan!} />);
    expect(html).toContain(`<code data-testid="failure-sandbox">${SANDBOX}</code>`);
    expect(html).toMatch(/<button[^>]*>Edit README.md<\/button>/);
    // Open folder is the desktop app's: the web console has no file manager to show.
    expect(html).not.toContain('Open folder');
    t.store.setState({ opensFolders: true });
    expect(render(t.store, <FailureCard plan={t.state().plan!} />)).toMatch(/<button[^>]*>Open folder<\/button>/);
    await t.state().openSandboxFolder();
    expect(fake.callsTo('plans.openSandbox')).toEqual([{ planId: 'P1' }]);
  });
});
