import { ValidationError } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';

/**
 * A database the process cannot use: unreachable, refusing us, or of a newer schema. A
 * ValidationError of the field `database`, so the CLI prints it as one line and exits 2.
 */
export class DatabaseError extends ValidationError {
  constructor(problem: string) {
    super('database', problem);
  }
}

/** Network and server errors that mean "cannot use this database", as the client reports them. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'ECONNRESET', 'EACCES']);
/** SQLSTATE classes 08 (connection), 28 (authorization), 3D000 (no such database), 57P03 (starting up). */
const REFUSED_STATES = /^(08|28|3D000|57P0[1-3])/;

/** A connection failure as a DatabaseError; anything else unchanged. */
export function asConnectionError(url: string, error: unknown): unknown {
  if (error instanceof DatabaseError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const timedOut = error instanceof Error && /timeout/i.test(error.message);
  if ((typeof code === 'string' && (UNREACHABLE_CODES.has(code) || REFUSED_STATES.test(code))) || timedOut) {
    return new DatabaseError(`cannot connect to ${redactText(url)}: ${message}`);
  }
  return error;
}
