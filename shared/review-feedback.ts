import { z } from 'zod';
import type { DiffHunk } from './changes';

/**
 * A hunk the operator declined in the review, kept with the plan so the model is told of it
 * (README.md, "Review and apply"). `lines` is the hunk as it was declined: a later change
 * renumbers the hunks, and the text still says what was declined.
 */
export const RejectedHunkSchema = z.lazy(() =>
  z.object({
    path: z.string().min(1),
    /** 1-based, as `agents plan diff` numbers the file's hunks when it was declined. */
    hunk: z.number().int().positive(),
    lines: z.string(),
    /** What the hunk changes, whatever its number and line numbers (fileHunkKeys); absent on hunks declined before it was kept. */
    key: z.string().optional(),
    reason: z.string().nullable(),
    by: z.string().min(1),
    at: z.string(),
  }),
);
export type RejectedHunk = z.infer<typeof RejectedHunkSchema>;

/** The longest reason, and the most lines of one hunk, a rejection keeps. */
export const REJECTION_LIMITS = { reason: 1000, hunkChars: 4000 } as const;

const ROW_PREFIX = { context: ' ', add: '+', del: '-', note: '\\' } as const;

/** A hunk as a unified diff writes it: its `@@` header and its lines. */
export function hunkText(hunk: DiffHunk): string {
  const text = [hunk.header, ...hunk.rows.map((r) => `${ROW_PREFIX[r.kind]}${r.text}`)].join('\n');
  return text.length > REJECTION_LIMITS.hunkChars ? `${text.slice(0, REJECTION_LIMITS.hunkChars)}\n… (cut)` : text;
}

/**
 * A hunk's identity for the review: a hash (FNV-1a) of the lines it removes and adds, in order, so
 * a hunk renumbered or moved by a later change is still the one declined, and one reworked is not.
 */
export function hunkKey(changed: Iterable<{ kind: 'add' | 'del'; text: string }>): string {
  let hash = 0x811c9dc5;
  for (const { kind, text } of changed) {
    const line = `${kind === 'add' ? '+' : '-'}${text}\n`;
    for (let i = 0; i < line.length; i++) hash = Math.imul(hash ^ line.charCodeAt(i), 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * The keys of a file's hunks, in order: each hunk's hunkKey and which of the file's hunks making
 * that same change it is (`KEY.2`, the second), so one of two identical hunks can be declined alone.
 */
export function fileHunkKeys(changes: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return changes.map((change) => {
    const n = (seen.get(change) ?? 0) + 1;
    seen.set(change, n);
    return `${change}.${n}`;
  });
}

/** A hunk as the review lists it. */
export interface ListedHunk {
  index: number;
  header: string;
  key: string;
  applied: boolean;
}

/**
 * Which listed hunk of `path` each of its rejections declines, one hunk per rejection: a hunk is
 * found by its key wherever it now stands. A key kept before keys told identical hunks apart
 * (hunkKey alone) takes the hunk of that change with the declined number, else the first not
 * taken; a rejection without a key, its number and header. A rejection whose hunk is gone is absent.
 */
export function matchRejections(rejections: readonly RejectedHunk[], path: string, hunks: readonly ListedHunk[]): Map<RejectedHunk, ListedHunk> {
  const matched = new Map<RejectedHunk, ListedHunk>();
  const legacy: RejectedHunk[] = [];
  for (const r of rejections) {
    if (r.path !== path) continue;
    if (r.key === undefined || !r.key.includes('.')) {
      legacy.push(r);
      continue;
    }
    const found = hunks.find((h) => h.key === r.key);
    if (found) matched.set(r, found);
  }
  // Matched after the exact keys, so an older rejection never claims a hunk a newer one names.
  const taken = new Set([...matched.values()].map((h) => h.index));
  for (const r of legacy) {
    const same = hunks.filter((h) => !taken.has(h.index) && (r.key !== undefined ? h.key.split('.', 1)[0] === r.key : h.index === r.hunk && h.header === r.lines.split('\n', 1)[0]));
    const found = same.find((h) => h.index === r.hunk) ?? same[0];
    if (!found) continue;
    taken.add(found.index);
    matched.set(r, found);
  }
  return matched;
}

/** The hunks of `path` (numbers, as listed now) that the operator declined and has not applied. */
export function declinedHunks(rejections: readonly RejectedHunk[], path: string, hunks: readonly ListedHunk[]): number[] {
  const out = new Set([...matchRejections(rejections, path, hunks).values()].filter((h) => !h.applied).map((h) => h.index));
  return [...out].sort((a, b) => a - b);
}

/** The rejection that declines hunk `index` of `path` as listed now (the newest, if several do). */
export function rejectionOf(rejections: readonly RejectedHunk[], path: string, hunks: readonly ListedHunk[], index: number): RejectedHunk | undefined {
  return [...matchRejections(rejections, path, hunks)].findLast(([, h]) => h.index === index)?.[0];
}

/**
 * The rejections with those of `path` that decline hunks `hunks` (numbered as `listed` now) replaced
 * by `add` (or, with `add` empty, removed); one whose hunk is gone goes by its number.
 */
export function withRejections(current: readonly RejectedHunk[], path: string, hunks: readonly number[], add: readonly RejectedHunk[], listed: readonly ListedHunk[]): RejectedHunk[] {
  const matched = matchRejections(current, path, listed);
  const named = (r: RejectedHunk) => r.path === path && hunks.includes(matched.get(r)?.index ?? r.hunk);
  return [...current.filter((r) => !named(r)), ...add];
}
