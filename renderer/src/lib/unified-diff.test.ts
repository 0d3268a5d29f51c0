import { describe, expect, it } from 'vitest';
import { countChanges, parseUnifiedDiff, toSplitRows } from './unified-diff';

const PATCH = [
  'Index: README.md',
  '===================================================================',
  '--- README.md',
  '+++ README.md',
  '@@ -1,3 +1,4 @@',
  ' # Demo',
  '-old line',
  '+new line',
  '+another',
  ' tail',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('parsing a unified diff', () => {
  it('numbers old and new lines from the hunk header and drops file headers', () => {
    const rows = parseUnifiedDiff(PATCH);
    expect(rows).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,4 @@' },
      { kind: 'context', text: '# Demo', oldLine: 1, newLine: 1 },
      { kind: 'del', text: 'old line', oldLine: 2, newLine: null },
      { kind: 'add', text: 'new line', oldLine: null, newLine: 2 },
      { kind: 'add', text: 'another', oldLine: null, newLine: 3 },
      { kind: 'context', text: 'tail', oldLine: 3, newLine: 4 },
      { kind: 'note', text: 'No newline at end of file' },
    ]);
    expect(countChanges(rows)).toEqual({ insertions: 2, deletions: 1 });
  });

  it('pairs removed lines with their replacements side by side', () => {
    const split = toSplitRows(parseUnifiedDiff(PATCH));
    expect(split.slice(1, 5)).toEqual([
      { kind: 'pair', left: { kind: 'context', line: 1, text: '# Demo' }, right: { kind: 'context', line: 1, text: '# Demo' } },
      { kind: 'pair', left: { kind: 'del', line: 2, text: 'old line' }, right: { kind: 'add', line: 2, text: 'new line' } },
      { kind: 'pair', left: null, right: { kind: 'add', line: 3, text: 'another' } },
      { kind: 'pair', left: { kind: 'context', line: 3, text: 'tail' }, right: { kind: 'context', line: 4, text: 'tail' } },
    ]);
  });

  it('handles a new file (all additions) and an empty diff', () => {
    const rows = parseUnifiedDiff('--- /dev/null\n+++ LICENSE\n@@ -0,0 +1 @@\n+MIT\n');
    expect(rows.at(-1)).toEqual({ kind: 'add', text: 'MIT', oldLine: null, newLine: 1 });
    expect(toSplitRows(rows).at(-1)).toEqual({ kind: 'pair', left: null, right: { kind: 'add', line: 1, text: 'MIT' } });
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});
