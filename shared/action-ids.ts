// The names of the operator actions, and what other records say with them (a next step, an action's
// state): derived from the table (actions.ts), whose keys are the ids, so an action is named once.
import { z } from 'zod';
import { ACTION_IDS, type ACTIONS } from './actions';

/** Every operator action's id: a key of ACTIONS. */
export type ActionId = keyof typeof ACTIONS;
export const ActionIdSchema = z.enum(ACTION_IDS as [ActionId, ...ActionId[]]);

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
