import { describe, expect, it } from 'vitest';
import { declinedHunks, fileHunkKeys, hunkKey, type RejectedHunk, withRejections } from './review-feedback';

const declined = (over: Partial<RejectedHunk>): RejectedHunk => ({ path: 'README.md', hunk: 2, lines: '@@ -20,7 +20,7 @@\n-old\n+new', reason: null, by: 'ada', at: '2026-01-01T00:00:00Z', ...over });
const key = hunkKey([
  { kind: 'del', text: 'old' },
  { kind: 'add', text: 'new' },
]);

describe('declinedHunks', () => {
  it('finds a declined hunk by what it changes after a later change renumbered and moved it', () => {
    const listed = [
      { index: 1, header: '@@ -1,3 +1,4 @@', key: 'other', applied: false },
      { index: 2, header: '@@ -8,3 +9,3 @@', key: 'another', applied: false },
      { index: 3, header: '@@ -20,7 +21,7 @@', key, applied: false },
    ];
    expect(declinedHunks([declined({ key })], 'README.md', listed)).toEqual([3]);
  });

  it('takes a hunk the model reworked as new, though its number and header are the same', () => {
    const listed = [
      { index: 1, header: '@@ -1,3 +1,4 @@', key: 'other', applied: false },
      { index: 2, header: '@@ -20,7 +20,7 @@', key: hunkKey([{ kind: 'del', text: 'old' }, { kind: 'add', text: 'newer' }]), applied: false },
    ];
    expect(declinedHunks([declined({ key })], 'README.md', listed)).toEqual([]);
  });

  it('matches a hunk declined before keys were kept by its number and header, and never an applied one or another file', () => {
    const listed = [{ index: 2, header: '@@ -20,7 +20,7 @@', key: 'x', applied: false }];
    expect(declinedHunks([declined({})], 'README.md', listed)).toEqual([2]);
    expect(declinedHunks([declined({})], 'README.md', [{ ...listed[0], applied: true }])).toEqual([]);
    expect(declinedHunks([declined({ path: 'LICENSE' })], 'README.md', listed)).toEqual([]);
  });

  describe('two hunks that make the same change', () => {
    const added = hunkKey([{ kind: 'add', text: 'ADDED' }]);
    const [first, second] = fileHunkKeys([added, added]);
    const listed = (keys: string[], from = 1) => keys.map((k, i) => ({ index: from + i, header: `@@ -${(from + i) * 10} +${(from + i) * 10},2 @@`, key: k, applied: false }));

    it('are told apart: declining one leaves the other accepted, wherever a later change moves them', () => {
      expect(first).not.toBe(second);
      expect(declinedHunks([declined({ hunk: 2, key: second })], 'README.md', listed([first, second]))).toEqual([2]);
      expect(declinedHunks([declined({ hunk: 1, key: first })], 'README.md', listed([first, second]))).toEqual([1]);
      // A new hunk above both renumbers them; the second is still the one declined.
      const [other] = fileHunkKeys([hunkKey([{ kind: 'add', text: 'other' }])]);
      expect(declinedHunks([declined({ hunk: 2, key: second })], 'README.md', listed([other, first, second]))).toEqual([3]);
    });

    it('a key kept before they were told apart declines the one with its number, and two such keys two hunks', () => {
      expect(declinedHunks([declined({ hunk: 2, key: added })], 'README.md', listed([first, second]))).toEqual([2]);
      expect(declinedHunks([declined({ hunk: 1, key: added })], 'README.md', listed([first, second]))).toEqual([1]);
      expect(declinedHunks([declined({ hunk: 5, key: added }), declined({ hunk: 6, key: added })], 'README.md', listed([first, second]))).toEqual([1, 2]);
    });

    it('restoring the hunk a rejection declines takes that rejection out, though it was declined under another number', () => {
      const [other] = fileHunkKeys([hunkKey([{ kind: 'add', text: 'other' }])]);
      const kept = [declined({ hunk: 2, key: second }), declined({ hunk: 1, key: first, reason: 'first' })];
      // Now hunk 3 is the second ADDED and hunk 2 the first.
      const now = listed([other, first, second]);
      expect(withRejections(kept, 'README.md', [3], [], now)).toEqual([kept[1]]);
      expect(withRejections(kept, 'README.md', [2], [], now)).toEqual([kept[0]]);
      // A rejection whose hunk is gone goes by its number.
      expect(withRejections(kept, 'README.md', [1], [], [])).toEqual([kept[0]]);
    });
  });
});
