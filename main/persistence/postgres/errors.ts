import { ValidationError } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';
import { EngineError } from '../../engine/errors';

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
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'ECONNRESET', 'EACCES', 'EPIPE']);
/** SQLSTATE classes 08 (connection), 28 (authorization), 3D000 (no such database), 57P0x (shut down, starting up). */
const REFUSED_STATES = /^(08|28|3D000|57P0[1-3])/;
/** What pg says of a connection the server ended under it (no code of its own). */
const ENDED_UNDER_US = /Connection terminated|not queryable|terminating connection|the database system is (starting up|shutting down)/i;

function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || REFUSED_STATES.test(code))) return true;
  return error instanceof Error && (/timeout/i.test(error.message) || ENDED_UNDER_US.test(error.message));
}

/** A connection failure as a DatabaseError; anything else unchanged. */
export function asConnectionError(url: string, error: unknown): unknown {
  if (error instanceof DatabaseError || error instanceof EngineError) return error;
  if (!isConnectionFailure(error)) return error;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new DatabaseError(`cannot connect to ${redactText(url)}: ${message}`);
}

/**
 * A connection failure after the database was reached (restarted, our session terminated, the
 * network cut) as an `interrupted` EngineError: the work in hand stopped for a reason outside it,
 * and is retried, where a DatabaseError would make a running step fail as bad input.
 */
export function asLostConnection(url: string, error: unknown): unknown {
  if (error instanceof EngineError || !isConnectionFailure(error)) return error;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new EngineError(`lost the connection to ${redactText(url)}: ${message}`, 'interrupted', { database: true });
}

/** The database restarting, or the connection cut: one that waits it out tries again. */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof DatabaseError || (error instanceof EngineError && error.details.database === true) || isConnectionFailure(error);
}
