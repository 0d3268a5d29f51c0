import { describe, expect, it } from 'vitest';
import type { DiffHunk } from '../../../shared/changes';
import { rowsFromHunks, toSplitRows } from './unified-diff';

const HUNKS: DiffHunk[] = [
  {
    header: '@@ -1,3 +1,4 @@',
    rows: [
      { kind: 'context', text: '# Demo', oldLine: 1, newLine: 1 },
      { kind: 'del', text: 'old line', oldLine: 2, newLine: null },
      { kind: 'add', text: 'new line', oldLine: null, newLine: 2 },
      { kind: 'add', text: 'another', oldLine: null, newLine: 3 },
      { kind: 'context', text: 'tail', oldLine: 3, newLine: 4 },
      { kind: 'note', text: 'No newline at end of file', oldLine: null, newLine: null },
    ],
  },
];

describe('the rows of a diff', () => {
  it('lists each hunk header, then its rows as the host numbered them', () => {
    expect(rowsFromHunks(HUNKS)).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,4 @@' },
      { kind: 'context', text: '# Demo', oldLine: 1, newLine: 1 },
      { kind: 'del', text: 'old line', oldLine: 2, newLine: null },
      { kind: 'add', text: 'new line', oldLine: null, newLine: 2 },
      { kind: 'add', text: 'another', oldLine: null, newLine: 3 },
      { kind: 'context', text: 'tail', oldLine: 3, newLine: 4 },
      { kind: 'note', text: 'No newline at end of file' },
    ]);
  });

  it('pairs removed lines with their replacements side by side', () => {
    const split = toSplitRows(rowsFromHunks(HUNKS));
    expect(split.slice(1, 5)).toEqual([
      { kind: 'pair', left: { kind: 'context', line: 1, text: '# Demo' }, right: { kind: 'context', line: 1, text: '# Demo' } },
      { kind: 'pair', left: { kind: 'del', line: 2, text: 'old line' }, right: { kind: 'add', line: 2, text: 'new line' } },
      { kind: 'pair', left: null, right: { kind: 'add', line: 3, text: 'another' } },
      { kind: 'pair', left: { kind: 'context', line: 3, text: 'tail' }, right: { kind: 'context', line: 4, text: 'tail' } },
    ]);
  });

  it('handles a new file (all additions) and an empty diff', () => {
    const rows = rowsFromHunks([{ header: '@@ -0,0 +1,1 @@', rows: [{ kind: 'add', text: 'MIT', oldLine: null, newLine: 1 }] }]);
    expect(rows.at(-1)).toEqual({ kind: 'add', text: 'MIT', oldLine: null, newLine: 1 });
    expect(toSplitRows(rows).at(-1)).toEqual({ kind: 'pair', left: null, right: { kind: 'add', line: 1, text: 'MIT' } });
    expect(rowsFromHunks([])).toEqual([]);
  });
});
