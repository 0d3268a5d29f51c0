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

/** The rejections with those of `path` numbered `hunks` replaced (or, with `add` false, removed). */
export function withRejections(current: readonly RejectedHunk[], path: string, hunks: readonly number[], add: readonly RejectedHunk[]): RejectedHunk[] {
  return [...current.filter((r) => r.path !== path || !hunks.includes(r.hunk)), ...add];
}
