import type { Plan } from '../../../shared/domain';
import type { ChangeEntryMeta } from '../../../shared/contract';
import { PlanError } from '../../../shared/errors';
import { STATUS_LABELS } from '../../../shared/vocabulary';
import { readSandboxFile, writeSandboxFile } from '../../engine/sandbox/operator-files';
import type { PlanContext } from './plan-context';
import type { RunRegistry } from './run-registry';

/** The operator's reads and edits of a plan's sandbox, as the console's editor makes them. */
export function planSandboxFiles(ctx: PlanContext, registry: RunRegistry) {
  /** A plan whose sandbox the operator may read and write: it has one, and no run is using it. */
  const sandboxOf = async (planId: string, forWrite: boolean): Promise<{ plan: Plan; sandboxRoot: string }> => {
    const plan = await ctx.get(planId);
    const sandboxRoot = plan.sandboxRefs[0];
    if (!sandboxRoot || plan.processingState === 'cancelled') throw new PlanError(`plan ${planId} has no sandbox${plan.processingState === 'cancelled' ? ' (it was discarded)' : ' yet; run it first'}`, 'wrong_state');
    if (forWrite && (plan.processingState === 'processing' || registry.isRunning(planId) || (await registry.runElsewhere(planId)))) {
      throw new PlanError(`plan ${planId} is ${STATUS_LABELS.running}; save when it has stopped`, 'wrong_state');
    }
    if (forWrite && plan.processingState === 'complete') throw new PlanError(`plan ${planId} is ${STATUS_LABELS.applied}; its changes are in the project`, 'wrong_state');
    return { plan, sandboxRoot };
  };

  return {
    /** A file of the plan's sandbox, as the console's editor opens it. */
    async readFile(planId: string, path: string): Promise<{ path: string; content: string | null; binary: boolean }> {
      return readSandboxFile((await sandboxOf(planId, false)).sandboxRoot, path);
    },

    /** Writes a text into the plan's sandbox and records it at once as the operator's change; null when nothing changed. */
    async saveFile(planId: string, path: string, content: string): Promise<{ entry: ChangeEntryMeta | null }> {
      const { plan, sandboxRoot } = await sandboxOf(planId, true);
      const relative = await writeSandboxFile(sandboxRoot, path, content);
      const recorded = await ctx.captureHandEdits(plan, [relative]);
      return { entry: recorded.at(-1) ?? null };
    },
  };
}

export type PlanSandboxFiles = ReturnType<typeof planSandboxFiles>;
