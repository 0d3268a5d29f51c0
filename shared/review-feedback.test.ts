import { describe, expect, it } from 'vitest';
import { declinedHunks, hunkKey, type RejectedHunk } from './review-feedback';

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
});
