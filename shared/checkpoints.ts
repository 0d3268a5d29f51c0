import { z } from 'zod';
import { once } from './once';

/**
 * Checkpoints: what a plan's sandbox, changeset, decisions and usage were as a step started, so the
 * plan can be rewound to before that step, or forked from it (docs/ARCHITECTURE.md, "Checkpoints").
 */

const count = z.number().int().nonnegative();
const stepNumber = z.number().int().positive();

/** One checkpoint as lists show it: `agents plan checkpoints`, `plans.checkpoints`, the console's tree. */
export const CheckpointSummarySchema = z.lazy(once(() =>
  z.object({
    id: z.string().min(1),
    planId: z.string().min(1),
    /** The step about to start, from 1 in tree order: rewinding to it puts the plan back to before it. */
    step: stepNumber,
    decisionId: z.string().min(1),
    description: z.string(),
    createdAt: z.string(),
    /** Files that differ from the previous checkpoint (for the first: every file of the sandbox). */
    filesChanged: count,
    /** The changeset's entries recorded before the step started. */
    entries: count,
    /** The plan's tokens when the step started. */
    inputTokens: count,
    outputTokens: count,
  }),
));
export type CheckpointSummary = z.infer<typeof CheckpointSummarySchema>;

/** A file a rewind (or a fork) changes in the sandbox, and whether the operator's own edit is among what it undoes. */
export const RewindFileSchema = z.lazy(() =>
  z.object({
    path: z.string(),
    /** What the rewind does to the file: brings it back (`create`), puts its old content or mode back (`modify`), removes it (`delete`). */
    operation: z.enum(['create', 'modify', 'delete']),
    /** The operator edited the file by hand after the checkpoint: the rewind undoes that edit too. */
    editedByOperator: z.boolean(),
  }),
);
export type RewindFile = z.infer<typeof RewindFileSchema>;

/** What a rewind does to a file, in words: the CLI's confirmation and the console's say it alike. */
export const REWIND_VERBS: Record<RewindFile['operation'], string> = { create: 'brought back', modify: 'put back', delete: 'removed' };

/** What a rewind to `toStep` would do, for a confirmation: the files, the operator's edits among them, the entries and steps undone. */
export const RewindPreviewSchema = z.lazy(once(() =>
  z.object({
    planId: z.string(),
    toStep: stepNumber,
    /** The steps that become pending again: `toStep` and every later one. */
    steps: count,
    files: z.array(RewindFileSchema),
    /** Paths the operator edited by hand after the checkpoint. */
    operatorEdits: z.array(z.string()),
    /** Changeset entries after the checkpoint: marked rewound, kept in the history, never applied. */
    entriesRewound: count,
  }),
));
export type RewindPreview = z.infer<typeof RewindPreviewSchema>;

/** What a rewind did. */
export const RewindResultSchema = z.lazy(() =>
  RewindPreviewSchema.unwrap().extend({
    /** The rewind's decision in the tree. */
    decisionId: z.string(),
  }),
);
export type RewindResult = z.infer<typeof RewindResultSchema>;

/** How the last rewind of a plan ended; `recovered`: it was cut off and finished when the data directory was next opened. */
export const RewindRecordSchema = z.lazy(() =>
  z.object({
    toStep: stepNumber,
    fromStep: stepNumber.nullable(),
    by: z.string(),
    at: z.string(),
    recovered: z.boolean(),
  }),
);
export type RewindRecord = z.infer<typeof RewindRecordSchema>;

/** The `data` of checkpoint_created. */
export const CheckpointCreatedSchema = z.lazy(() => CheckpointSummarySchema.unwrap().omit({ planId: true }));

/** The `data` of plan_rewound. */
export const PlanRewoundSchema = z.lazy(() =>
  z.object({
    toStep: stepNumber,
    /** The step the plan had reached (its first step not done), or null when every step was done. */
    fromStep: stepNumber.nullable(),
    decisionId: z.string(),
    by: z.string(),
    files: count,
    entriesRewound: count,
    /** The rewind was cut off (its process killed) and completed when the data directory was next opened. */
    recovered: z.boolean(),
  }),
);

/** Where a fork came from: its origin and the step it goes on from (steps before it are the origin's, shared, not re-run). */
export const ForkOriginSchema = z.lazy(once(() =>
  z.object({
    planId: z.string().min(1),
    /** The step the fork goes on from: its checkpoint made the fork's sandbox. */
    atStep: stepNumber,
    /** When the checkpoint was taken: the origin's time running before it is the fork's too. */
    checkpointAt: z.string(),
    by: z.string(),
    at: z.string(),
  }),
));
export type ForkOrigin = z.infer<typeof ForkOriginSchema>;

/** A fork as its origin lists it. */
export const ForkRefSchema = z.lazy(() => ForkOriginSchema.unwrap().pick({ atStep: true, by: true, at: true }).extend({ planId: z.string().min(1) }));
export type ForkRef = z.infer<typeof ForkRefSchema>;

/** What a fork changes from its origin: absent, the origin's. */
export const ForkChangesSchema = z.lazy(() =>
  z.object({
    profile: z.string().optional(),
    model: z.string().optional(),
    /** The coding agent (ACP) the fork runs instead of its origin's agent or model. */
    agent: z.string().optional(),
    /** The steps from `atStep` on were replaced by this many from a plan file. */
    steps: count.optional(),
  }),
);

/** The `data` of plan_forked, in the fork's events and in its origin's. */
export const PlanForkedSchema = z.lazy(once(() =>
  z.object({
    /** The new plan. */
    forkId: z.string().min(1),
    from: z.string().min(1),
    atStep: stepNumber,
    by: z.string(),
    /** Steps shared with the origin (done or skipped there), not run again. */
    sharedSteps: count,
    /** Changeset entries shared with the origin. */
    sharedEntries: count,
    changes: ForkChangesSchema,
  }),
));
export type PlanForked = z.infer<typeof PlanForkedSchema>;

/** What a fork did: the new plan's id and what it shares (the response of plans.fork beside the new plan). */
export const ForkResultSchema = z.lazy(() => PlanForkedSchema.unwrap().omit({ by: true }));
export type ForkResult = z.infer<typeof ForkResultSchema>;
