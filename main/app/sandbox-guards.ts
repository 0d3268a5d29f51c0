import { existsSync } from 'node:fs';
import type { Plan } from '../../shared/domain';
import { PlanError } from '../../shared/errors';
import type { ReviewFile } from '../engine/changeset/review';
import { InvariantRules } from '../engine/invariants';
import { loadProjectInvariants } from './plan-file';

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

/**
 * Apply never writes a path the project's `protect` rules guard, whoever changed it: a write the
 * run made but never recorded (a crash mid-command, an unconfined child) comes back as the
 * operator's edit. The rules are those the plan recorded and the project's file as it is now.
 */
export function refuseProtected(plan: Pick<Plan, 'id' | 'projectPath' | 'projectInvariants'>, files: readonly ReviewFile[]): void {
  const now = plan.projectPath ? loadProjectInvariants(plan.projectPath) : null;
  const protect = [...new Set([...(plan.projectInvariants?.protect ?? []), ...(now?.protect ?? [])])];
  if (protect.length === 0) return;
  const rules = new InvariantRules({ protect, denyCommands: [], notes: [] });
  for (const file of files) {
    if (file.state === 'applied') continue;
    const at = [file.path, ...(file.oldPath ? [file.oldPath] : [])].find((p) => rules.protectedBy(p));
    if (at) {
      throw new PlanError(
        `plan ${plan.id} changes ${at}, which the project invariant protect "${rules.protectedBy(at)}" guards; put it back in the sandbox, or change it in the project directly`,
        'policy',
      );
    }
  }
}
