import { mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '../../shared/domain';
import { remakeSandbox, sandboxAsLastSeen, sandboxHere } from '../engine/changeset/remake';
import { EngineError } from '../engine/errors';
import { SANDBOXES_FOLDER } from '../persistence/data-dir';
import { DEFAULT_MAX_PROJECT_BYTES } from './project-policy';
import type { PlanContext } from './use-cases/plan-context';

/** The plan's sandbox remade at `<sandboxesDir>/<planId>`, and the plan pointed at it (with the commit cloned, for a git project that had none recorded). */
export async function remakeHere(ctx: PlanContext, plan: Plan, sandboxesDir: string): Promise<Plan> {
  const { stores, lifecycle, options } = ctx;
  // The changes alone, without the project's other files, are not the sandbox the plan ran in.
  if (plan.projectPath && !statSync(plan.projectPath, { throwIfNoEntry: false })?.isDirectory()) {
    const hint = `A plan whose project is a local folder runs only where that folder is: run a worker on that machine, or make the project a git repository (project: { git: URL, ref: main }).`;
    throw new EngineError(`cannot remake the sandbox of plan ${plan.id}: its project ${plan.projectPath} is not on ${hostname()}`, 'project_unreachable', { projectPath: plan.projectPath, hint });
  }
  mkdirSync(sandboxesDir, { recursive: true, mode: 0o700 });
  const remade = await remakeSandbox({
    plan,
    dir: join(sandboxesDir, plan.id),
    changesets: stores.changesets,
    files: stores.sandboxFiles,
    maxBytes: options.maxProjectBytes ?? DEFAULT_MAX_PROJECT_BYTES,
    checkpoints: { store: stores.checkpoints, objects: ctx.objects, ensure: (hashes) => ctx.ensureObjects(hashes) },
  });
  const source = plan.projectSource && !plan.projectSource.baseCommit ? { projectSource: { ...plan.projectSource, baseCommit: remade.baseCommit } } : {};
  return lifecycle.unit(async () => {
    const updated = await lifecycle.update(plan.id, { sandboxRefs: [remade.root], ...source });
    const { root: sandboxRoot, base, baseCommit, applied, drift, checkpointStep, git, ownGit } = remade;
    await ctx.events.publish(plan.id, 'sandbox_remade', { sandboxRoot, base, baseCommit, files: applied.length, drift, checkpointStep, git, ...(ownGit ? { ownGit } : {}) });
    return updated;
  });
}

/** Whether the plan's sandbox is this process's (in its data directory) and as the plan's last capture saw it. */
export async function sandboxKept(ctx: PlanContext, plan: Plan): Promise<boolean> {
  const root = plan.sandboxRefs[0];
  const dir = join(ctx.options.dataDir, SANDBOXES_FOLDER);
  return !!root && sandboxHere(root, dir, plan.id) && (await sandboxAsLastSeen(ctx.stores.sandboxFiles, ctx.stores.changesets, plan, root));
}

/**
 * In team mode, the plan's sandbox on this machine, for an operation that works in it (a rewind,
 * a verify) wherever the plan last ran: kept when it is this process's and as last seen, else
 * remade here from the database, so no machine of the team refuses the operation for where the
 * sandbox lives. The caller holds the plan. On one machine, the plan as it is.
 */
export async function sandboxHereFor(ctx: PlanContext, plan: Plan): Promise<Plan> {
  if (!ctx.options.remakeSandboxes || !plan.sandboxRefs[0] || (await sandboxKept(ctx, plan))) return plan;
  return remakeHere(ctx, plan, join(ctx.options.dataDir, SANDBOXES_FOLDER));
}
