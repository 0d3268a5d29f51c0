import type { ZodError } from 'zod';
import type { BridgeErrorPayload } from '../../shared/contract';
import { PlanError, ValidationError } from '../../shared/errors';
import { clientError } from '../app/client-errors';

/** What every host error becomes before it crosses a boundary: a code and one line, never a stack. */
export function invalidRequest(error: ZodError, prefix?: string): BridgeErrorPayload {
  const v = ValidationError.fromZod(error, prefix);
  // Say that there were extra fields, not which: a reply never repeats names the client chose.
  if (error.issues[0]?.code === 'unrecognized_keys') return { code: 'invalid_request', message: `${v.field}: has fields this call does not take`, field: v.field };
  return { code: 'invalid_request', message: v.message, field: v.field };
}

export function toBridgeError(thrown: unknown, log: (message: string, error: unknown) => void): BridgeErrorPayload {
  const error = clientError(thrown);
  if (error instanceof ValidationError) {
    // Fields are named as the contract names them (camelCase) where the error is raised.
    return { code: 'invalid_request', message: error.message, field: error.field };
  }
  if (error instanceof PlanError) return { code: error.code, message: error.message };
  // Anything else is a bug: keep the details in the host's log, send a generic line.
  log('internal error', error);
  return { code: 'internal', message: 'internal error; see the host log' };
}
