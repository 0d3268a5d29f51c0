import { failureOf } from '../../../shared/contract';

/** The host refused because the plan is no longer where the view shows it. */
export function isStaleRefusal(error: unknown): boolean {
  const code = failureOf(error)?.code;
  return code === 'wrong_state' || code === 'wrong_phase';
}
