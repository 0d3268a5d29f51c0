import { describe, expect, it } from 'vitest';
import { fileHunkKeys, hunkKey } from '../../../shared/review-feedback';
import { lineDiff, structuredHunks, unifiedHunks } from './line-diff';
import { applyHunks, listHunks } from './hunks';

const lines = (n: number, edit: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

describe('hunks of a file', () => {
  const before = lines(40);
  const after = lines(40, { 2: 'two', 20: 'twenty', 38: 'thirty-eight' });

  it("keys each hunk by what it changes, as the rows an operator declines from say it", () => {
    const diff = lineDiff(before, after);
    const fromRows = fileHunkKeys(structuredHunks(diff).map((h) => hunkKey(h.rows.filter((r): r is typeof r & { kind: 'add' | 'del' } => r.kind === 'add' || r.kind === 'del'))));
    expect(listHunks(diff).map((h) => h.key)).toEqual(fromRows);
    // The same change lower in a longer file keeps its key.
    const moved = listHunks(lineDiff(`extra\n${before}`, `extra\n${after}`));
    expect(moved.map((h) => h.key)).toEqual(fromRows);
    expect(new Set(fromRows).size).toBe(3);
  });

  it('tells apart two hunks that make the same change', () => {
    const keys = listHunks(lineDiff(before, lines(40, { 2: 'line 2\nADDED', 20: 'twenty', 38: 'line 38\nADDED' }))).map((h) => h.key);
    expect(new Set(keys).size).toBe(3);
    expect(keys[0].split('.')[0]).toBe(keys[2].split('.')[0]);
  });

  it('numbers hunks as the unified diff shows them', () => {
    const headers = unifiedHunks(lineDiff(before, after)).filter((l) => l.startsWith('@@'));
    expect(listHunks(lineDiff(before, after)).map((h) => h.header)).toEqual(headers);
    expect(listHunks(lineDiff(before, after)).map((h) => [h.index, h.insertions, h.deletions])).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [3, 1, 1],
    ]);
  });

  it('applies only the accepted hunks; all of them give the new text, none the old', () => {
    expect(applyHunks(lineDiff(before, after), new Set([1, 3]))).toBe(lines(40, { 2: 'two', 38: 'thirty-eight' }));
    expect(applyHunks(lineDiff(before, after), new Set([1, 2, 3]))).toBe(after);
    expect(applyHunks(lineDiff(before, after), new Set())).toBe(before);
  });

  it('keeps a missing final newline, and handles lines added at the end', () => {
    expect(applyHunks(lineDiff('a\nb', 'a\nb\nc\n'), new Set([1]))).toBe('a\nb\nc\n');
    expect(applyHunks(lineDiff('a\nb', 'a\nb\nc\n'), new Set())).toBe('a\nb');
    expect(applyHunks(lineDiff('', 'new\n'), new Set([1]))).toBe('new\n');
  });

  it('past the comparison budget, the middle between the common head and tail is one hunk an operator can still apply', () => {
    const p = Array.from({ length: 1000 }, () => 'p');
    const q = Array.from({ length: 1000 }, () => 'q');
    const old = `head\n${[...p, ...q].join('\n')}\ntail\n`;
    const neu = `head\n${[...q, ...p].join('\n')}\ntail\n`;
    const diff = lineDiff(old, neu, 3, 1000);
    expect(listHunks(diff)).toEqual([{ index: 1, header: '@@ -1,2002 +1,2002 @@', insertions: 2000, deletions: 2000, key: expect.stringMatching(/^[0-9a-f]{8}\.1$/) }]);
    expect(applyHunks(diff, new Set([1]))).toBe(neu);
    expect(applyHunks(diff, new Set())).toBe(old);
  });
});
