// A plan's changeset: the entries its tool calls (or the operator) made in the sandbox, their
// diffs as the console draws them, and what an apply of them did.
import { z } from 'zod';
import { once } from './once';

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

export const CHANGE_OPERATIONS = ['create', 'modify', 'delete', 'rename'] as const;
export const ChangeOperationSchema = z.enum(CHANGE_OPERATIONS);
/** Who made a change: a tool call of the plan, or the operator by hand in the sandbox. Absent means `tool`. */
export const CHANGE_ORIGINS = ['tool', 'operator'] as const;
export const ChangeOriginSchema = z.enum(CHANGE_ORIGINS);
export type ChangeOrigin = z.infer<typeof ChangeOriginSchema>;
export type ChangeOperation = z.infer<typeof ChangeOperationSchema>;

export const ChangeEntrySchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    path: nonEmpty,
    /** Set for renames: where the file was before. */
    oldPath: z.string().nullable().default(null),
    operation: ChangeOperationSchema,
    beforeHash: z.string().nullable(),
    afterHash: z.string().nullable(),
    /** File contents; base64 when `binary` is true, so apply can restore the exact bytes. */
    beforeText: z.string().nullable(),
    afterText: z.string().nullable(),
    binary: z.boolean().default(false),
    decisionId: z.string().nullable().default(null),
    invocationId: z.string().nullable().default(null),
    /** The file's permission bits after the change (absent: not recorded, as before modes were kept). */
    mode: z.number().int().min(0).max(0o7777).optional(),
    /** The file's permission bits before the change (absent: not recorded): a mode changed alone is `beforeMode` to `mode`. */
    beforeMode: z.number().int().min(0).max(0o7777).optional(),
    origin: ChangeOriginSchema.optional(),
    /** A rewind made the entry history: listed, never applied. */
    rewound: z.boolean().optional(),
    createdAt: timestamp,
  }),
);
export type ChangeEntry = z.infer<typeof ChangeEntrySchema>;
export type ChangeEntryInput = z.input<typeof ChangeEntrySchema>;

/** An entry without its file texts, with the line counts computed when it was recorded. */
export const ChangeEntryMetaSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    path: z.string(),
    oldPath: z.string().nullable(),
    operation: ChangeOperationSchema,
    beforeHash: z.string().nullable(),
    afterHash: z.string().nullable(),
    binary: z.boolean(),
    decisionId: z.string().nullable(),
    invocationId: z.string().nullable(),
    origin: ChangeOriginSchema.optional(),
    /** A rewind made the entry history: listed, never applied. */
    rewound: z.boolean().optional(),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
  }),
);
export type ChangeEntryMeta = z.infer<typeof ChangeEntryMetaSchema>;

/** What an apply did: files written, files whose project copy changed since the plan ran, files left out. */
export const ApplyResultSchema = z.lazy(once(() =>
  z.object({
    planId: z.string(),
    applied: z.array(z.string()),
    conflicts: z.array(z.object({ path: z.string(), expectedHash: z.string().nullable(), actualHash: z.string().nullable(), reason: z.string().optional() })),
    skipped: z.array(z.string()),
    /** Files with something still to apply; the plan stays in apply until none is left. */
    remaining: z.array(z.string()),
    complete: z.boolean(),
    /** Applied to a new branch of the plan's git repository: its name, commit (null: not pushed) and URL. */
    branch: z.object({ name: z.string(), commit: z.string().nullable(), url: z.string() }).optional(),
  }),
));

/** One line of a diff as the diff view draws it; a `note` says a side ends without a newline. */
export const DiffRowSchema = z.lazy(() =>
  z.object({
    kind: z.enum(['context', 'add', 'del', 'note']),
    text: z.string(),
    /** 1-based; null on the side the line is not on. */
    oldLine: z.number().int().positive().nullable(),
    newLine: z.number().int().positive().nullable(),
  }),
);
export type DiffRow = z.infer<typeof DiffRowSchema>;
export const DiffHunkSchema = z.lazy(() => z.object({ header: z.string(), rows: z.array(DiffRowSchema) }));
export type DiffHunk = z.infer<typeof DiffHunkSchema>;

export const ChangeSetSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    createdAt: timestamp,
    entries: z.array(ChangeEntrySchema),
  }),
);
export type ChangeSet = z.infer<typeof ChangeSetSchema>;

export const ChangeSetSummarySchema = z.lazy(() =>
  z.object({
    changesetId: nonEmpty,
    planId: nonEmpty,
    entryCount: z.number().int().nonnegative(),
    files: z.number().int().nonnegative(),
    operations: z.record(ChangeOperationSchema, z.number().int().nonnegative()),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
  }),
);
export type ChangeSetSummary = z.infer<typeof ChangeSetSummarySchema>;
