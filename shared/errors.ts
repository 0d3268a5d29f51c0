import { z, type ZodError } from 'zod';

/**
 * Every error code that crosses a boundary (the contract's error envelope, the WebSocket, IPC, the
 * CLI's messages). A closed set: a new failure gets a code here, so clients can switch on it.
 */
export const ERROR_CODES = [
  // bad input
  'invalid_request',
  'invalid_message',
  'invalid_json',
  'message_too_large',
  'unknown_channel',
  // the plan's phase or state does not allow the operation
  'wrong_state',
  'wrong_phase',
  'invalid_transition',
  'not_running',
  'no_project',
  'strategize_incomplete',
  'wrong_context',
  'no_active_changeset',
  'unsupported',
  'not_agent',
  // subscriptions
  'duplicate_subscription',
  'unknown_subscription',
  'too_many_subscriptions',
  // a rewind could not be finished: its journal is kept until it is finished or the plan discarded
  'rewind_failed',
  // the caller
  'forbidden',
  // a rule refused the operation: a symbolic link or .git where it would write, a protected path
  'policy',
  // seen only by clients
  'bad_response',
  'disconnected',
  'disposed',
  // anything else: a bug, with details in the host's log only
  'internal',
] as const;
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** Bad input. The message always names the offending field. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }

  /** One readable line from the first zod issue, with its field path. */
  static fromZod(error: ZodError, prefix?: string): ValidationError {
    const { path, message } = mostSpecificIssue(error.issues as readonly ZodIssueLike[], []);
    const field = [prefix, ...path.map(String)].filter(Boolean).join('.');
    return new ValidationError(field || '(root)', message);
  }
}

interface ZodIssueLike {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
  errors?: readonly (readonly ZodIssueLike[])[];
}

/**
 * A union failure says only "Invalid input"; the branch that got furthest into the value
 * names the real problem, so follow it.
 */
function mostSpecificIssue(issues: readonly ZodIssueLike[], base: readonly PropertyKey[]): { path: PropertyKey[]; message: string; code?: string } {
  const issue = issues[0];
  if (!issue) return { path: [...base], message: 'invalid value' };
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    // Deepest branch first; at equal depth, a branch of the right type says more than "expected object".
    const rank = (c: { path: PropertyKey[]; code?: string }) => c.path.length * 2 + (c.code === 'invalid_type' ? 0 : 1);
    const candidates = issue.errors.filter((branch) => branch.length > 0).map((branch) => mostSpecificIssue(branch, path));
    const best = candidates.sort((a, b) => rank(b) - rank(a))[0];
    if (best) return best;
  }
  return { path, message: issue.message, code: issue.code };
}

/** A plan operation that is not allowed in the plan's current phase or state, or an engine misuse. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    message: string,
    readonly code: ErrorCode = 'wrong_state',
  ) {
    super(message);
  }
}

/** Parse `data` with `schema`, turning a failure into a one-line ValidationError. */
export function parseOrThrow<T>(
  schema: { safeParse(data: unknown): { success: true; data: T } | { success: false; error: ZodError } },
  data: unknown,
  prefix?: string,
): T {
  const result = schema.safeParse(data);
  if (!result.success) throw ValidationError.fromZod(result.error, prefix);
  return result.data;
}
