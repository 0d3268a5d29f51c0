// A failure as the error recovery service records it, with the next step it suggests: apart from
// the domain's records because a next step names an action, and the actions' rules read those records.
import { z } from 'zod';
import { NextStepSchema } from './action-ids';
import { ErrorCategorySchema, PhaseSchema, RecoveryActionSchema } from './domain';
import { once } from './once';

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

/** One failure, as recorded by the error recovery service; persisted, so history survives restarts. */
export const ErrorRecordSchema = z.lazy(once(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    phase: PhaseSchema,
    decisionId: z.string().nullable(),
    attempt: z.number().int().positive(),
    category: ErrorCategorySchema,
    retriable: z.boolean(),
    recoveryAction: RecoveryActionSchema,
    message: z.string(),
    stack: z.string().nullable(),
    hint: z.string(),
    /** The suggested next step: an action and its arguments (shared/actions.ts), never a command line. */
    next: NextStepSchema.nullable(),
    /** What happened next: retried automatically, or gave up. */
    outcome: z.enum(['retried', 'gave_up']),
    createdAt: timestamp,
  }),
));
export type ErrorRecord = z.infer<typeof ErrorRecordSchema>;
