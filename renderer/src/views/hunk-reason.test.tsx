import { describe, expect, it } from 'vitest';
import type { ReviewFile } from '../../../shared/contract';
import type { DiffHunk } from '../../../shared/changes';
import { makeEntry, makePlan, reviewOf } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { fileHunkKeys, hunkKey } from '../../../shared/review-feedback';
import { DiffViewer } from './DiffViewer';

const HEADERS = ['@@ -1 +1 @@', '@@ -9 +9 @@'];
const hunk = (header: string, line: number): DiffHunk => ({
  header,
  rows: [
    { kind: 'del', text: 'old', oldLine: line, newLine: null },
    { kind: 'add', text: 'new', oldLine: null, newLine: line },
  ],
});

/** README.md with two hunks in the review, the plan ready to apply, and its diff loaded. */
function reviewed() {
  const t = testRuntime();
  t.fake.plan = makePlan({ phase: 'apply', projectPath: '/p' });
  t.fake.entries = [makeEntry('e1', 'README.md')];
  const file: ReviewFile = { ...reviewOf(t.fake.entries)[0], units: 2, hunks: HEADERS.map((header, i) => ({ index: i + 1, header, insertions: 1, deletions: 1, key: `k${i + 1}`, applied: false })) };
  t.fake.on('plans.review', () => ({ changesetId: 'CS1', files: [file] }));
  t.fake.on('plans.reviewDiff', () => ({ file, hunks: HEADERS.map((h, i) => hunk(h, i * 8 + 1)) }));
  return t;
}

describe('a declined hunk in the review', () => {
  it('is kept with the plan, asks why, and keeps the reason the operator gives', async () => {
    const t = reviewed();
    t.state().openPlan('P1');
    await t.settle();
    expect(render(t.store, <DiffViewer />)).not.toContain('hunk-reason');

    t.state().toggleHunk('README.md', 2);
    await t.settle();
    expect(t.fake.callsTo('plans.rejectHunks')).toEqual([{ planId: 'P1', path: 'README.md', hunks: [2] }]);
    let html = render(t.store, <DiffViewer />);
    expect(html).toMatch(/<input class="hunk-reason" type="text" maxLength="1000" placeholder="Why\? The agent is told" aria-label="Why hunk 2 is declined" value=""\/>/);
    expect(html).not.toContain('Why hunk 1 is declined');

    await t.state().setHunkReason('README.md', 2, 'keep the old wording');
    // Leaving the field unchanged writes nothing more.
    await t.state().setHunkReason('README.md', 2, 'keep the old wording');
    expect(t.fake.callsTo('plans.rejectHunks')).toHaveLength(2);
    expect(t.fake.callsTo('plans.rejectHunks')[1]).toEqual({ planId: 'P1', path: 'README.md', hunks: [2], reason: 'keep the old wording' });
    html = render(t.store, <DiffViewer />);
    expect(html).toContain('value="keep the old wording"');

    t.state().toggleHunk('README.md', 2);
    await t.settle();
    expect(t.fake.callsTo('plans.restoreHunks')).toEqual([{ planId: 'P1', path: 'README.md', hunks: [2] }]);
    expect(render(t.store, <DiffViewer />)).not.toContain('hunk-reason');
  });

  it('opens declined where the plan keeps it, unless the hunk was reworked since', async () => {
    const t = reviewed();
    const kept = (hunk: number, header: string) => ({ path: 'README.md', hunk, lines: `${header}\n-old\n+new`, reason: 'no', by: 'ana', at: '2026-01-01T00:00:00.000Z' });
    t.fake.plan = { ...t.fake.plan, rejectedHunks: [kept(1, HEADERS[0]), kept(2, '@@ -7 +7 @@')] };
    t.state().openPlan('P1');
    await t.settle();
    expect(t.state().rejectedHunks).toEqual({ 'README.md': [1] });
    await t.state().applySelected();
    await t.state().confirmApply();
    expect(t.fake.callsTo('plans.apply')).toEqual([{ planId: 'P1', paths: [], hunks: { 'README.md': [2] } }]);
  });

  describe('one of two hunks that make the same change', () => {
    const added = hunkKey([{ kind: 'add', text: 'ADDED' }]);
    const other = hunkKey([{ kind: 'add', text: 'other' }]);
    const addition = (header: string, text: string, line: number): DiffHunk => ({ header, rows: [{ kind: 'add', text, oldLine: null, newLine: line }] });

    /** README.md whose hunks add `texts`, keyed as the host keys them, with `kept` declined in the plan. */
    function twice(texts: string[], kept: { hunk: number; key: string; reason: string }[]) {
      const t = testRuntime();
      t.fake.plan = makePlan({ phase: 'apply', projectPath: '/p' });
      t.fake.plan = { ...t.fake.plan, rejectedHunks: kept.map((k) => ({ path: 'README.md', lines: '', by: 'ana', at: '2026-01-01T00:00:00.000Z', ...k })) };
      t.fake.entries = [makeEntry('e1', 'README.md')];
      const keys = fileHunkKeys(texts.map((text) => (text === 'ADDED' ? added : other)));
      const headers = texts.map((_, i) => `@@ -${i * 10 + 2},0 +${i * 11 + 3} @@`);
      const file: ReviewFile = { ...reviewOf(t.fake.entries)[0], units: texts.length, hunks: headers.map((header, i) => ({ index: i + 1, header, insertions: 1, deletions: 0, key: keys[i], applied: false })) };
      t.fake.on('plans.review', () => ({ changesetId: 'CS1', files: [file] }));
      t.fake.on('plans.reviewDiff', () => ({ file, hunks: headers.map((h, i) => addition(h, texts[i], i * 11 + 3)) }));
      return { t, keys };
    }

    it('opens declined alone, with its reason, after a change above renumbered it, and apply takes the other', async () => {
      const [, , secondAdded] = fileHunkKeys([other, added, added]);
      const { t } = twice(['other', 'ADDED', 'ADDED'], [{ hunk: 2, key: secondAdded, reason: 'only once' }]);
      t.state().openPlan('P1');
      await t.settle();
      t.state().selectPath('README.md');
      await t.settle();
      expect(t.state().rejectedHunks).toEqual({ 'README.md': [3] });
      const html = render(t.store, <DiffViewer />);
      expect(html).toMatch(/aria-label="Why hunk 3 is declined" value="only once"/);
      expect(html).not.toContain('Why hunk 2 is declined');
      // The reason it already has is not written again.
      await t.state().setHunkReason('README.md', 3, 'only once');
      expect(t.fake.callsTo('plans.rejectHunks')).toEqual([]);
      await t.state().applySelected();
      await t.state().confirmApply();
      expect(t.fake.callsTo('plans.apply')).toEqual([{ planId: 'P1', paths: [], hunks: { 'README.md': [1, 2] } }]);
    });

    it('declined before the console told them apart, opens the one with the declined number', async () => {
      const { t } = twice(['ADDED', 'ADDED'], [{ hunk: 2, key: added, reason: 'the second' }]);
      t.state().openPlan('P1');
      await t.settle();
      expect(t.state().rejectedHunks).toEqual({ 'README.md': [2] });
    });
  });
});
