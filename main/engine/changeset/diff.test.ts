import { describe, expect, it } from 'vitest';
import { toChangeEntry } from '../run/change-capture';
import type { CapturedChange } from '../tools/definition';
import { diffStats, gitBlobId, quoteGitPath, unifiedDiff } from './diff';

const entry = (change: CapturedChange) => toChangeEntry(change, { decisionId: null, invocationId: null });
const b = (s: string) => Buffer.from(s);

describe('unifiedDiff', () => {
  it('writes a modification with git headers and three lines of context', () => {
    const diff = unifiedDiff(entry({ operation: 'modify', path: 'src/a.txt', before: b('1\n2\n3\n4\n5\n6\n7\n'), after: b('1\n2\n3\nFOUR\n5\n6\n7\n') }));
    expect(diff).toBe(
      [
        'diff --git a/src/a.txt b/src/a.txt',
        `index ${gitBlobId(b('1\n2\n3\n4\n5\n6\n7\n'))}..${gitBlobId(b('1\n2\n3\nFOUR\n5\n6\n7\n'))}`,
        '--- a/src/a.txt',
        '+++ b/src/a.txt',
        '@@ -1,7 +1,7 @@',
        ' 1',
        ' 2',
        ' 3',
        '-4',
        '+FOUR',
        ' 5',
        ' 6',
        ' 7',
        '',
      ].join('\n'),
    );
  });

  it('uses /dev/null for the missing side of a create and a delete', () => {
    expect(unifiedDiff(entry({ operation: 'create', path: 'n.txt', before: null, after: b('hi\n') }))).toBe(
      ['diff --git a/n.txt b/n.txt', 'new file mode 100644', `index ${'0'.repeat(40)}..${gitBlobId(b('hi\n'))}`, '--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,1 @@', '+hi', ''].join('\n'),
    );
    const deleted = unifiedDiff(entry({ operation: 'delete', path: 'old.txt', before: b('a\nb'), after: null }));
    expect(deleted).toContain('deleted file mode 100644\n');
    expect(deleted).toContain('--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n\\ No newline at end of file\n');
  });

  it('writes rename headers, with a hunk only when the content changed too', () => {
    expect(unifiedDiff(entry({ operation: 'rename', path: 'new/name.txt', oldPath: 'old.txt', before: b('x\n'), after: b('x\n') }))).toBe(
      'diff --git a/old.txt b/new/name.txt\nsimilarity index 100%\nrename from old.txt\nrename to new/name.txt\n',
    );
    const edited = unifiedDiff(entry({ operation: 'rename', path: 'b.txt', oldPath: 'a.txt', before: b('1\n2\n3\n4\n'), after: b('1\n2\n3\nfour\n') }));
    expect(edited).toContain('rename from a.txt\nrename to b.txt\n');
    expect(edited).toContain('--- a/a.txt\n+++ b/b.txt\n');
  });

  it('returns null for binary entries', () => {
    expect(unifiedDiff(entry({ operation: 'create', path: 'x.bin', before: null, after: Buffer.from([0, 1, 2]) }))).toBeNull();
  });

  it('quotes paths as git does when they hold quotes, backslashes or control characters', () => {
    expect(quoteGitPath('a/plain name.txt')).toBe('a/plain name.txt');
    expect(quoteGitPath('a/tab\there"\\.txt')).toBe('"a/tab\\there\\"\\\\.txt"');
    expect(quoteGitPath('a/bell\x07')).toBe('"a/bell\\a"');
    expect(quoteGitPath('a/esc\x1b')).toBe('"a/esc\\033"');
  });
});

describe('diffStats', () => {
  it('counts inserted and deleted lines, and nothing for binary entries', () => {
    expect(diffStats(entry({ operation: 'modify', path: 'a', before: b('1\n2\n3\n'), after: b('1\ntwo\n3\n4\n') }))).toEqual({ insertions: 2, deletions: 1, binary: false });
    expect(diffStats(entry({ operation: 'modify', path: 'a', before: Buffer.from([0]), after: Buffer.from([1, 0]) }))).toEqual({ insertions: 0, deletions: 0, binary: true });
  });
});
