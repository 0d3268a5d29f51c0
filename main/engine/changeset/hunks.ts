import { commonRuns, changesBetween, groupChanges, type LineChange, splitLines, type SplitText } from './line-diff';

/** One hunk of a file's net diff, numbered from 1 in the order a unified diff shows them. */
export interface HunkInfo {
  index: number;
  /** `@@ -a,b +c,d @@`, exactly as the unified diff of the same texts writes it. */
  header: string;
  insertions: number;
  deletions: number;
}

/**
 * The hunks between two texts, grouped as `unifiedHunks` groups them (3 lines of context), so hunk
 * n here is the n-th `@@` line of the diff an operator reads. A diff out of budget is one hunk, as
 * the diff then is.
 */
export function hunkGroups(before: string, after: string): { a: SplitText; b: SplitText; groups: LineChange[][] } {
  const a = splitLines(before);
  const b = splitLines(after);
  const runs = commonRuns(a, b);
  const changes = runs ? changesBetween(runs, a.lines.length, b.lines.length) : [{ oldStart: 0, oldEnd: a.lines.length, newStart: 0, newEnd: b.lines.length }];
  const nonEmpty = changes.filter((c) => c.oldEnd > c.oldStart || c.newEnd > c.newStart);
  return { a, b, groups: runs ? groupChanges(nonEmpty, 3) : nonEmpty.length > 0 ? [nonEmpty] : [] };
}

export function listHunks(before: string, after: string): HunkInfo[] {
  const { a, groups } = hunkGroups(before, after);
  return groups.map((group, i) => {
    const first = group[0];
    const last = group[group.length - 1];
    const oldFrom = Math.max(0, first.oldStart - 3);
    const oldTo = Math.min(a.lines.length, last.oldEnd + 3);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const newTo = last.newEnd + (oldTo - last.oldEnd);
    const oldCount = oldTo - oldFrom;
    const newCount = newTo - newFrom;
    return {
      index: i + 1,
      header: `@@ -${oldCount === 0 ? oldFrom : oldFrom + 1},${oldCount} +${newCount === 0 ? newFrom : newFrom + 1},${newCount} @@`,
      insertions: group.reduce((n, c) => n + c.newEnd - c.newStart, 0),
      deletions: group.reduce((n, c) => n + c.oldEnd - c.oldStart, 0),
    };
  });
}

/** A line with the newline it had (the last line of a text may have none). */
function withEnding(text: SplitText, i: number): string {
  return i === text.lines.length - 1 && !text.finalNewline ? text.lines[i] : `${text.lines[i]}\n`;
}

/**
 * `before` with only the hunks in `accepted` (1-based) taken from `after`: what the project file
 * holds when an operator accepts some hunks of a change and rejects the others. Accepting every
 * hunk gives `after`, accepting none gives `before`, byte for byte.
 */
export function applyHunks(before: string, after: string, accepted: ReadonlySet<number>): string {
  const { a, b, groups } = hunkGroups(before, after);
  const out: string[] = [];
  let at = 0;
  groups.forEach((group, g) => {
    const take = accepted.has(g + 1);
    for (const change of group) {
      for (; at < change.oldStart; at++) out.push(withEnding(a, at));
      if (take) for (let y = change.newStart; y < change.newEnd; y++) out.push(withEnding(b, y));
      else for (let x = change.oldStart; x < change.oldEnd; x++) out.push(withEnding(a, x));
      at = change.oldEnd;
    }
  });
  for (; at < a.lines.length; at++) out.push(withEnding(a, at));
  return out.join('');
}
