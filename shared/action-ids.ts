// The names of the operator actions, and what other records say with them (a next step, an action's
// state). A leaf: the domain's records name actions without importing the table that defines them.
import { z } from 'zod';

/** Every operator action's id, in the order the table (actions.ts) declares them and lists show them. */
export const ACTION_IDS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'apply', 'discard', 'approve', 'reject', 'skip', 'edit_step', 'set_profile', 'replan', 'correct', 'verify', 'rewind', 'fork', 'compare', 'show_errors'] as const;
export type ActionId = (typeof ACTION_IDS)[number];
export const ActionIdSchema = z.enum(ACTION_IDS);

export const ActionStateSchema = z.lazy(() =>
  z.object({
    id: ActionIdSchema,
    allowed: z.boolean(),
    reason: z.string().nullable(),
    /** Allowed only once the operator confirms, for this reason (apply after a failed check): the console asks a second time. */
    confirm: z.string().optional(),
  }),
);
export type ActionState = z.infer<typeof ActionStateSchema>;

/**
 * A next step: an action with its arguments, and why it is suggested. Stored with a failure and
 * shown by each client its own way: a command at the command line, a button in the console.
 */
export const NextStepSchema = z.lazy(() =>
  z.object({
    action: ActionIdSchema,
    args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    message: z.string(),
  }),
);
export type NextStep = z.infer<typeof NextStepSchema>;
