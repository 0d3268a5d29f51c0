import { z } from 'zod';
import type { DiffHunk } from './domain';

/**
 * A hunk the operator declined in the review, kept with the plan so the model is told of it
 * (README.md, "Review and apply"). `lines` is the hunk as it was declined: a later change
 * renumbers the hunks, and the text still says what was declined.
 */
export const RejectedHunkSchema = z.object({
  path: z.string().min(1),
  /** 1-based, as `agents plan diff` numbers the file's hunks when it was declined. */
  hunk: z.number().int().positive(),
  lines: z.string(),
  /** What the hunk changes, whatever its number and line numbers (hunkKey); absent on hunks declined before it was kept. */
  key: z.string().optional(),
  reason: z.string().nullable(),
  by: z.string().min(1),
  at: z.string(),
});
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

/** A hunk as the review lists it. */
export interface ListedHunk {
  index: number;
  header: string;
  key: string;
  applied: boolean;
}

/**
 * The hunks of `path` (numbers, as listed now) that the operator declined and has not applied: a
 * declined hunk is found by what it changes wherever it now stands; one declined before keys were
 * kept, by its number and header.
 */
export function declinedHunks(rejections: readonly RejectedHunk[], path: string, hunks: readonly ListedHunk[]): number[] {
  const out = new Set<number>();
  for (const r of rejections) {
    if (r.path !== path) continue;
    const found = hunks.find((h) => !h.applied && (r.key !== undefined ? h.key === r.key : h.index === r.hunk && h.header === r.lines.split('\n', 1)[0]));
    if (found) out.add(found.index);
  }
  return [...out].sort((a, b) => a - b);
}

/** The rejections with those of `path` numbered `hunks` replaced (or, with `add` false, removed). */
export function withRejections(current: readonly RejectedHunk[], path: string, hunks: readonly number[], add: readonly RejectedHunk[]): RejectedHunk[] {
  return [...current.filter((r) => r.path !== path || !hunks.includes(r.hunk)), ...add];
}
