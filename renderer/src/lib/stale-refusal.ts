import { BridgeError } from '../../../shared/contract';

/** The host refused because the plan is no longer where the view shows it. */
export function isStaleRefusal(error: unknown): boolean {
  return error instanceof BridgeError && (error.payload.code === 'wrong_state' || error.payload.code === 'wrong_phase');
}
