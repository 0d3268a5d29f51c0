import type { ZodError } from 'zod';

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
    const issue = error.issues[0];
    const path = [prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
    return new ValidationError(path || '(root)', issue?.message ?? 'invalid value');
  }
}

/** A plan operation that is not allowed in the plan's current phase or state, or an engine misuse. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    message: string,
    readonly code: string = 'plan_error',
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
