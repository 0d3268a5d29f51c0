import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonRuns, countLineChanges, lineDiff, splitLines, structuredHunks, unifiedHunks } from './line-diff';

/** Applies unified hunks to `before`, checking every context and removed line. */
function applyHunks(before: string, hunks: string[]): string {
  const source = before === '' ? [] : before.split(/(?<=\n)/);
  const out: string[] = [];
  let pos = 0;
  let lastAdded: number | null = null;
  for (const line of hunks) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(line);
    if (header) {
      const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      while (pos < start) out.push(source[pos++]);
      continue;
    }
    if (line === '\\ No newline at end of file') {
      if (lastAdded !== null) out[lastAdded] = out[lastAdded].replace(/\n$/, '');
      continue;
    }
    const body = `${line.slice(1)}\n`;
    if (line[0] === '+') {
      lastAdded = out.push(body) - 1;
      continue;
    }
    expect(source[pos].replace(/\n?$/, '\n')).toBe(body);
    if (line[0] === ' ') lastAdded = out.push(source[pos]) - 1;
    else lastAdded = null;
    pos++;
  }
  while (pos < source.length) out.push(source[pos++]);
  return out.join('');
}

/** Length of the longest common subsequence of the lines, by dynamic programming. */
function lcsLength(a: string[], b: string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = [0];
    for (let j = 0; j < b.length; j++) row.push(x === b[j] ? previous[j] + 1 : Math.max(previous[j + 1], row[j]));
    previous = row;
  }
  return previous[b.length];
}

/** Small texts over few distinct lines, so that many alignments are possible; CRLF and a missing final newline included. */
const text = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', 'c', '', 'a\r', 'x y'), { maxLength: 25 }), fc.boolean())
  .map(([lines, newline]) => (lines.length === 0 ? '' : lines.join('\n') + (newline ? '\n' : '')));

describe('line diff', () => {
  it('gives hunks that turn the old text into the new one', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        expect(applyHunks(before, unifiedHunks(lineDiff(before, after)))).toBe(after);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the diff view the same hunks as the text, as rows with line numbers', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const asText = structuredHunks(lineDiff(before, after)).flatMap((hunk) => [
          hunk.header,
          ...hunk.rows.map((row) => (row.kind === 'note' ? `\\ ${row.text}` : `${row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : ' '}${row.text}`)),
        ]);
        expect(asText).toEqual(unifiedHunks(lineDiff(before, after)));
        for (const hunk of structuredHunks(lineDiff(before, after))) {
          for (const row of hunk.rows) {
            if (row.oldLine !== null) expect(splitLines(before).lines[row.oldLine - 1]).toBe(row.text);
            if (row.newLine !== null) expect(splitLines(after).lines[row.newLine - 1]).toBe(row.text);
          }
        }
      }),
    );
  });

  it('finds a longest common subsequence, so the counts are minimal', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        // Mark a last line without newline so that it equals no line that has one, as the diff treats it.
        const keys = (t: string) => {
          const { lines, finalNewline } = splitLines(t);
          return lines.map((line, i) => (i === lines.length - 1 && !finalNewline ? `${line}\n` : line));
        };
        const a = keys(before);
        const b = keys(after);
        const common = lcsLength(a, b);
        expect(countLineChanges(before, after)).toEqual({ insertions: b.length - common, deletions: a.length - common });
      }),
      { numRuns: 2000 },
    );
  });

  it('numbers hunks as git does, with three lines of context and "No newline" markers', () => {
    expect(unifiedHunks(lineDiff('1\n2\n3\n4\n5\n6\n7\n8\n9\n', '1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n'))).toEqual([
      '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+FIVE', ' 6', ' 7', ' 8',
    ]);
    expect(unifiedHunks(lineDiff('', 'a\n'))).toEqual(['@@ -0,0 +1,1 @@', '+a']);
    expect(unifiedHunks(lineDiff('a\n', ''))).toEqual(['@@ -1,1 +0,0 @@', '-a']);
    expect(unifiedHunks(lineDiff('a\nb', 'a\nb\n'))).toEqual(['@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+b']);
    expect(unifiedHunks(lineDiff('same\n', 'same\n'))).toEqual([]);
  });

  it('keeps changes up to six lines apart in one hunk and splits farther ones', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const edit = (at: number[]) => lines.map((l, i) => (at.includes(i) ? `${l}!` : l)).join('\n') + '\n';
    const before = `${lines.join('\n')}\n`;
    expect(unifiedHunks(lineDiff(before, edit([5, 12]))).filter((l) => l.startsWith('@@'))).toHaveLength(1);
    expect(unifiedHunks(lineDiff(before, edit([5, 13]))).filter((l) => l.startsWith('@@'))).toHaveLength(2);
  });

  it('gives up past its comparison budget instead of stalling, keeping the common head and tail', () => {
    // Lines that occur on both sides, in swapped blocks: nothing can be set aside, and the diff is long.
    const p = Array.from({ length: 1000 }, () => 'p');
    const q = Array.from({ length: 1000 }, () => 'q');
    const before = `head\n${[...p, ...q].join('\n')}\ntail\n`;
    const after = `head\n${[...q, ...p].join('\n')}\ntail\n`;
    expect(commonRuns(splitLines(before), splitLines(after), 1000)).toBeNull();
    // The patch then replaces everything between the common head and tail, as countLineChanges counts it.
    const whole = unifiedHunks(lineDiff(before, after, 3, 1000));
    expect(whole[0]).toBe('@@ -1,2002 +1,2002 @@');
    expect(whole.filter((l) => l.startsWith('-'))).toHaveLength(2000);
    expect(applyHunks(before, whole)).toBe(after);
    expect(countLineChanges(before, after, 1000)).toEqual({ insertions: 2000, deletions: 2000 });
    // Within the default budget the same texts diff exactly.
    expect(countLineChanges(before, after)).toEqual({ insertions: 1000, deletions: 1000 });
  });

  it('sets aside lines found on one side only, so a rewrite is cheap', () => {
    const before = `${Array.from({ length: 20_000 }, (_, i) => `old ${i}`).join('\n')}\n`;
    const after = `${Array.from({ length: 20_000 }, (_, i) => `new ${i}`).join('\n')}\n`;
    expect(countLineChanges(before, after, 100)).toEqual({ insertions: 20_000, deletions: 20_000 });
  });
});
