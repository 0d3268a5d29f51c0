import { PlanError } from '../../shared/errors';
import { EngineError } from '../engine/errors';

/**
 * An engine refusal outside a run (an apply, say) as the error every client sees: bad input is
 * `invalid_request`, a rule's refusal (a symbolic link or `.git` where a write would go, a protected
 * path, a project invariant) is `policy`, each with the engine's one-line message. Anything else is
 * returned as it is: a failure the engine did not foresee stays `internal`.
 */
export function clientError(error: unknown): unknown {
  if (!(error instanceof EngineError)) return error;
  if (error.category === 'validation') return new PlanError(error.message, 'invalid_request');
  if (error.category === 'policy' || error.category === 'invariant') return new PlanError(error.message, 'policy');
  return error;
}
