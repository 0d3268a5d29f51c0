import diffSequences from '@jest/diff-sequences';
import type { DiffHunk, DiffRow } from '../../../shared/changes';

/** A text as lines without their `\n`; `finalNewline` is false when the last line has none. */
export interface SplitText {
  lines: string[];
  finalNewline: boolean;
}

export function splitLines(text: string): SplitText {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/**
 * Line comparisons one diff may make before it gives up. Myers' algorithm costs about
 * (old + new lines) x (changed lines) once the lines found on one side only are set aside; this
 * bounds a pathological pair (long runs of the same few lines, reordered) to a fraction of a
 * second, while realistic edits stay far below it.
 */
export const DEFAULT_COMPARISON_BUDGET = 20_000_000;

/** A run of lines equal on both sides: `length` lines from `oldStart` (old) and `newStart` (new), 0-based. */
export interface CommonRun {
  oldStart: number;
  newStart: number;
  length: number;
}

const OUT_OF_BUDGET = Symbol('out of comparison budget');

/**
 * The longest common subsequence of two texts' lines as runs in order (Myers' O(ND) algorithm in
 * linear space, after trimming the common head and tail), or null when it would take more than
 * `budget` line comparisons. A last line without its newline never equals one with it, as in git.
 * `endsOnly` gives just the common head and tail.
 */
export function commonRuns(a: SplitText, b: SplitText, budget = DEFAULT_COMPARISON_BUDGET, endsOnly = false): CommonRun[] | null {
  const n = a.lines.length;
  const m = b.lines.length;
  const aLines = a.lines;
  const bLines = b.lines;
  // Only the very last line of a side can lack its newline; it then equals no line of the other side that has one.
  const aOpen = a.finalNewline ? -1 : n - 1;
  const bOpen = b.finalNewline ? -1 : m - 1;
  const same = (x: number, y: number) => aLines[x] === bLines[y] && (x === aOpen) === (y === bOpen);

  let head = 0;
  while (head < n && head < m && same(head, head)) head++;
  let tail = 0;
  while (tail < n - head && tail < m - head && same(n - 1 - tail, m - 1 - tail)) tail++;

  const runs: CommonRun[] = [];
  if (head > 0) runs.push({ oldStart: 0, newStart: 0, length: head });
  const aLength = n - head - tail;
  const bLength = m - head - tail;
  if (aLength > 0 && bLength > 0 && !endsOnly) {
    // Number the lines (equal lines, equal numbers) and set aside those found on one side only:
    // they can be in no common subsequence, and a rewritten block is mostly such lines (GNU diff
    // and git discard them too). What is left is usually short and mostly equal.
    const ids = new Map<string, number>();
    const aIds = new Int32Array(aLength);
    const bIds = new Int32Array(bLength);
    const seen: number[] = [];
    for (let i = 0; i < aLength; i++) {
      const key = head + i === aOpen ? `\n${aLines[head + i]}` : aLines[head + i];
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
        seen.push(1);
      }
      aIds[i] = id;
    }
    for (let j = 0; j < bLength; j++) {
      const key = head + j === bOpen ? `\n${bLines[head + j]}` : bLines[head + j];
      const id = ids.get(key);
      if (id === undefined) {
        bIds[j] = -1;
      } else {
        bIds[j] = id;
        seen[id] |= 2;
      }
    }
    const aKeep: number[] = [];
    const bKeep: number[] = [];
    for (let i = 0; i < aLength; i++) if (seen[aIds[i]] === 3) aKeep.push(i);
    for (let j = 0; j < bLength; j++) if (bIds[j] >= 0) bKeep.push(j);
    let left = budget;
    try {
      let open: CommonRun | null = null;
      diffSequences(
        aKeep.length,
        bKeep.length,
        (i, j) => {
          if (--left < 0) throw OUT_OF_BUDGET;
          return aIds[aKeep[i]] === bIds[bKeep[j]];
        },
        (length, i, j) => {
          // Matched pairs of kept lines; runs in the full texts break where a discarded line sat between.
          for (let k = 0; k < length; k++) {
            const x = head + aKeep[i + k];
            const y = head + bKeep[j + k];
            if (open && open.oldStart + open.length === x && open.newStart + open.length === y) {
              open.length += 1;
            } else {
              open = { oldStart: x, newStart: y, length: 1 };
              runs.push(open);
            }
          }
        },
      );
    } catch (error) {
      if (error === OUT_OF_BUDGET) return null;
      throw error;
    }
  }
  if (tail > 0) runs.push({ oldStart: n - tail, newStart: m - tail, length: tail });
  return runs;
}

/** How many lines splitLines(text) gives, without making them. */
function lineCount(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

/** Lines added and removed between two texts (null = the file did not exist). */
export function countLineChanges(before: string | null, after: string | null, budget = DEFAULT_COMPARISON_BUDGET): { insertions: number; deletions: number } {
  // The common cases need no diff: a file created, deleted, or renamed without an edit.
  if (before === after) return { insertions: 0, deletions: 0 };
  if (!before) return { insertions: lineCount(after ?? ''), deletions: 0 };
  if (!after) return { insertions: 0, deletions: lineCount(before) };
  const a = splitLines(before ?? '');
  const b = splitLines(after ?? '');
  // Out of budget: everything between the common head and tail counts as rewritten.
  const runs = commonRuns(a, b, budget) ?? commonRuns(a, b, 0, true) ?? [];
  const common = runs.reduce((sum, run) => sum + run.length, 0);
  return { insertions: b.lines.length - common, deletions: a.lines.length - common };
}

/** Lines `oldStart..oldEnd` of the old text replaced by `newStart..newEnd` of the new one (0-based, end exclusive). */
export interface LineChange {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** Changes with the common lines drawn around them: lines `oldFrom..oldTo` and `newFrom..newTo` (0-based, end exclusive). */
export interface LineHunk {
  changes: LineChange[];
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
  /** `@@ -a,b +c,d @@`, an empty side numbered as git does (`-0,0`). */
  header: string;
  insertions: number;
  deletions: number;
}

/** Two texts' lines and the hunks between them. */
export interface LineDiff {
  a: SplitText;
  b: SplitText;
  hunks: LineHunk[];
}

/**
 * The one grouping of a diff into hunks, which every view of a diff uses (the patch text, the rows
 * the diff view draws, the hunks an operator accepts): `context` lines around each change, and
 * changes at most 2 x context lines apart share a hunk. Past the comparison budget, everything
 * between the common head and tail is one change, as countLineChanges counts it.
 */
export function lineDiff(before: string, after: string, context = 3, budget = DEFAULT_COMPARISON_BUDGET): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  const runs = commonRuns(a, b, budget) ?? commonRuns(a, b, 0, true) ?? [];
  const changes: LineChange[] = [];
  let i = 0;
  let j = 0;
  for (const run of [...runs, { oldStart: a.lines.length, newStart: b.lines.length, length: 0 }]) {
    if (run.oldStart > i || run.newStart > j) changes.push({ oldStart: i, oldEnd: run.oldStart, newStart: j, newEnd: run.newStart });
    i = run.oldStart + run.length;
    j = run.newStart + run.length;
  }
  const hunks: LineHunk[] = [];
  for (let c = 0; c < changes.length; ) {
    let last = c;
    while (last + 1 < changes.length && changes[last + 1].oldStart - changes[last].oldEnd <= 2 * context) last++;
    const group = changes.slice(c, last + 1);
    const first = group[0];
    const end = group[group.length - 1];
    const oldFrom = Math.max(0, first.oldStart - context);
    const oldTo = Math.min(a.lines.length, end.oldEnd + context);
    const newFrom = first.newStart - (first.oldStart - oldFrom);
    const newTo = end.newEnd + (oldTo - end.oldEnd);
    const oldCount = oldTo - oldFrom;
    const newCount = newTo - newFrom;
    hunks.push({
      changes: group,
      oldFrom,
      oldTo,
      newFrom,
      newTo,
      header: `@@ -${oldCount === 0 ? oldFrom : oldFrom + 1},${oldCount} +${newCount === 0 ? newFrom : newFrom + 1},${newCount} @@`,
      insertions: group.reduce((n, x) => n + x.newEnd - x.newStart, 0),
      deletions: group.reduce((n, x) => n + x.oldEnd - x.oldStart, 0),
    });
    c = last + 1;
  }
  return { a, b, hunks };
}

/**
 * The hunks as the diff view draws them: a header and rows with their line numbers (1-based), and a
 * note where a side ends without a newline. Same hunks as unifiedHunks, never formatted as text.
 */
export function structuredHunks({ a, b, hunks }: LineDiff): DiffHunk[] {
  return hunks.map((hunk) => {
    const rows: DiffRow[] = [];
    const noNewline = (side: SplitText, index: number) => {
      if (index === side.lines.length - 1 && !side.finalNewline) rows.push({ kind: 'note', text: 'No newline at end of file', oldLine: null, newLine: null });
    };
    let at = hunk.oldFrom;
    let atNew = hunk.newFrom;
    const context = (end: number) => {
      for (; at < end; at++, atNew++) {
        rows.push({ kind: 'context', text: a.lines[at], oldLine: at + 1, newLine: atNew + 1 });
        noNewline(a, at);
      }
    };
    for (const change of hunk.changes) {
      context(change.oldStart);
      for (let x = change.oldStart; x < change.oldEnd; x++) {
        rows.push({ kind: 'del', text: a.lines[x], oldLine: x + 1, newLine: null });
        noNewline(a, x);
      }
      for (let y = change.newStart; y < change.newEnd; y++) {
        rows.push({ kind: 'add', text: b.lines[y], oldLine: null, newLine: y + 1 });
        noNewline(b, y);
      }
      at = change.oldEnd;
      atNew = change.newEnd;
    }
    context(hunk.oldTo);
    return { header: hunk.header, rows };
  });
}

/** Unified-diff hunks as lines: each hunk's `@@` header, then its lines with their ` `, `-`, `+` prefixes. */
export function unifiedHunks({ a, b, hunks }: LineDiff): string[] {
  const out: string[] = [];
  const line = (prefix: string, side: SplitText, i: number) => {
    out.push(`${prefix}${side.lines[i]}`);
    if (i === side.lines.length - 1 && !side.finalNewline) out.push('\\ No newline at end of file');
  };
  // One push per line: spreading a huge hunk into push() would overflow the call stack.
  for (const hunk of hunks) {
    out.push(hunk.header);
    let at = hunk.oldFrom;
    for (const change of hunk.changes) {
      for (; at < change.oldStart; at++) line(' ', a, at);
      for (let x = change.oldStart; x < change.oldEnd; x++) line('-', a, x);
      for (let y = change.newStart; y < change.newEnd; y++) line('+', b, y);
      at = change.oldEnd;
    }
    for (; at < hunk.oldTo; at++) line(' ', a, at);
  }
  return out;
}
