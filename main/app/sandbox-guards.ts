import { existsSync } from 'node:fs';
import type { Plan } from '../../shared/domain';
import { PlanError } from '../../shared/errors';

/**
 * A plan whose sandbox folder is gone (removed by hand, a tmp cleaner, a crash mid-discard) cannot
 * run: its changes and the operator's edits lived there. Apply still works from the stored changeset.
 * Where the process remakes sandboxes (`remakeSandboxes`: a worker), the run remakes it instead.
 */
export function requireSandboxPresent(plan: Pick<Plan, 'id' | 'sandboxRefs'>, options: { remakeSandboxes?: boolean } = {}): void {
  const root = plan.sandboxRefs[0];
  if (root && !options.remakeSandboxes && !existsSync(root)) {
    throw new PlanError(`plan ${plan.id} cannot run: its sandbox ${root} is gone; apply what it recorded, or discard the plan and create it again`, 'wrong_state');
  }
}
