import type { LineDiff, SplitText } from './line-diff';
import { fileHunkKeys, hunkKey } from '../../../shared/review-feedback';

/** One hunk of a file's net diff, numbered from 1 in the order a unified diff shows them. */
export interface HunkInfo {
  index: number;
  /** `@@ -a,b +c,d @@`, exactly as the unified diff of the same texts writes it. */
  header: string;
  insertions: number;
  deletions: number;
  /** What the hunk changes, whatever its number (shared/review-feedback.ts, fileHunkKeys). */
  key: string;
}

/** The hunks of a diff as an operator picks them: hunk n is the n-th `@@` line of the diff they read. */
export function listHunks(diff: LineDiff): HunkInfo[] {
  const keys = fileHunkKeys(diff.hunks.map((h) => hunkKey(changedLines(diff, h))));
  return diff.hunks.map((h, i) => ({ index: i + 1, header: h.header, insertions: h.insertions, deletions: h.deletions, key: keys[i] }));
}

/** A hunk's removed then added lines, change by change, as its rows list them. */
function* changedLines({ a, b }: LineDiff, hunk: LineDiff['hunks'][number]): Generator<{ kind: 'add' | 'del'; text: string }> {
  for (const change of hunk.changes) {
    for (let x = change.oldStart; x < change.oldEnd; x++) yield { kind: 'del', text: a.lines[x] };
    for (let y = change.newStart; y < change.newEnd; y++) yield { kind: 'add', text: b.lines[y] };
  }
}

/** A line with the newline it had (the last line of a text may have none). */
function withEnding(text: SplitText, i: number): string {
  return i === text.lines.length - 1 && !text.finalNewline ? text.lines[i] : `${text.lines[i]}\n`;
}

/**
 * The diff's old text with only the hunks in `accepted` (1-based) taken from the new one: what the
 * project file holds when an operator accepts some hunks of a change and rejects the others.
 * Accepting every hunk gives the new text, accepting none the old one, byte for byte.
 */
export function applyHunks({ a, b, hunks }: LineDiff, accepted: ReadonlySet<number>): string {
  const out: string[] = [];
  let at = 0;
  hunks.forEach((hunk, h) => {
    const take = accepted.has(h + 1);
    for (const change of hunk.changes) {
      for (; at < change.oldStart; at++) out.push(withEnding(a, at));
      if (take) for (let y = change.newStart; y < change.newEnd; y++) out.push(withEnding(b, y));
      else for (let x = change.oldStart; x < change.oldEnd; x++) out.push(withEnding(a, x));
      at = change.oldEnd;
    }
  });
  for (; at < a.lines.length; at++) out.push(withEnding(a, at));
  return out.join('');
}
