import { describe, expect, it } from 'vitest';
import { unifiedHunks } from './line-diff';
import { applyHunks, listHunks } from './hunks';

const lines = (n: number, edit: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

describe('hunks of a file', () => {
  const before = lines(40);
  const after = lines(40, { 2: 'two', 20: 'twenty', 38: 'thirty-eight' });

  it('numbers hunks as the unified diff shows them', () => {
    const headers = (unifiedHunks(before, after) ?? []).filter((l) => l.startsWith('@@'));
    expect(listHunks(before, after).map((h) => h.header)).toEqual(headers);
    expect(listHunks(before, after).map((h) => [h.index, h.insertions, h.deletions])).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [3, 1, 1],
    ]);
  });

  it('applies only the accepted hunks; all of them give the new text, none the old', () => {
    expect(applyHunks(before, after, new Set([1, 3]))).toBe(lines(40, { 2: 'two', 38: 'thirty-eight' }));
    expect(applyHunks(before, after, new Set([1, 2, 3]))).toBe(after);
    expect(applyHunks(before, after, new Set())).toBe(before);
  });

  it('keeps a missing final newline, and handles lines added at the end', () => {
    expect(applyHunks('a\nb', 'a\nb\nc\n', new Set([1]))).toBe('a\nb\nc\n');
    expect(applyHunks('a\nb', 'a\nb\nc\n', new Set())).toBe('a\nb');
    expect(applyHunks('', 'new\n', new Set([1]))).toBe('new\n');
  });
});
