import { z } from 'zod';
import { ChangeOperationSchema, DiffHunkSchema } from './changes';

/**
 * Two runs side by side (`agents plan compare`, `plans.compare`): the files each changed, the
 * difference between their results where both changed a file, and what each run cost.
 */

const count = z.number().int().nonnegative();

/** A file one plan changed, netted across its steps as the review shows it. */
export const ComparedFileSchema = z.object({
  path: z.string(),
  oldPath: z.string().nullable(),
  operation: ChangeOperationSchema,
  binary: z.boolean(),
  insertions: count,
  deletions: count,
});
export type ComparedFile = z.infer<typeof ComparedFileSchema>;

/** A plan's side: what it changed and what its run took. */
export const CompareSideSchema = z.object({
  planId: z.string(),
  name: z.string(),
  status: z.string(),
  files: z.array(ComparedFileSchema),
  /** Steps done (a fork counts the ones it shares with its origin). */
  stepsDone: count,
  steps: count,
  toolCalls: count,
  inputTokens: count,
  outputTokens: count,
  /** At the configured price; null without one. */
  cost: z.number().nonnegative().nullable(),
  /** Time spent running, in milliseconds (a fork counts its origin's before the step it was forked at). */
  durationMs: count,
});
export type CompareSide = z.infer<typeof CompareSideSchema>;

/** A file both plans changed: how the first plan's result differs from the second's. */
export const BothChangedSchema = z.object({
  path: z.string(),
  /** Both ended with the same content (or both deleted the file). */
  same: z.boolean(),
  binary: z.boolean(),
  /** What turns the first plan's result into the second's, as the review's diff view draws it; null when the same or binary. */
  hunks: z.array(DiffHunkSchema).nullable(),
  /** The same as a git-style diff, `a/` the first plan's result and `b/` the second's; null when the same or binary. */
  diff: z.string().nullable(),
  insertions: count,
  deletions: count,
});
export type BothChanged = z.infer<typeof BothChangedSchema>;

export const PlanCompareSchema = z.object({
  projectPath: z.string().nullable(),
  a: CompareSideSchema,
  b: CompareSideSchema,
  /** Paths only the first, only the second, and both changed. */
  onlyA: z.array(z.string()),
  onlyB: z.array(z.string()),
  both: z.array(BothChangedSchema),
});
export type PlanCompare = z.infer<typeof PlanCompareSchema>;
