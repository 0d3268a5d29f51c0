import type { Plan } from '../../shared/domain';
import { PlanError } from '../../shared/errors';
import type { ReviewFile } from '../engine/changeset/review';
import { InvariantRules } from '../engine/gates/invariants';
import { loadProjectInvariants } from './plan-file';

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
