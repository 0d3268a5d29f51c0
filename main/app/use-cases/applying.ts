import type { Plan } from '../../../shared/domain';
import { ValidationError } from '../../../shared/errors';
import { declinedHunks } from '../../../shared/review-feedback';
import type { ReviewFile } from '../../engine/changeset/review';
import { remainingAfter, reviewNet } from '../../engine/changeset/review';
import { removeSandbox } from '../../engine/sandbox/sandbox';
import { refuseProtected } from '../apply-guards';
import type { PlanContext } from './plan-context';
import type { PlanReading } from './reading';
import type { RunRegistry } from './run-registry';
import { actionGuard } from './actions';
import type { PlanVerifying } from './verifying';
import { testGate } from './test-gate';
import { clearRewindFailure, collectUnreferencedObjects } from './checkpoints';
import type { StreamCallback } from '../../../shared/events';
import { applyAtTarget, type ApplyTarget, checkTarget, type TargetResult } from './apply-target';

export interface ApplyResult {
  planId: string;
  applied: string[];
  conflicts: { path: string; expectedHash: string | null; actualHash: string | null; reason?: string }[];
  skipped: string[];
  /** Files with something still to apply after this apply. */
  remaining: string[];
  /** True when nothing is left: the plan is complete. */
  complete: boolean;
  /** With `branch`: the branch pushed, and its commit (null when a conflict stopped it). */
  branch?: TargetResult['branch'];
}

export interface ApplyOptions extends ApplyTarget {
  paths?: string[];
  hunks?: Record<string, number[]>;
  force?: boolean;
  acceptFailedChecks?: boolean;
  streamCallback?: StreamCallback;
}

/** Ending a plan: its accepted changes written into the project, or the rest discarded. */
export function planApplying(ctx: PlanContext, registry: RunRegistry, reading: Pick<PlanReading, 'changeEntries' | 'review'>, verifying: Pick<PlanVerifying, 'verifyIfStale'>) {
  const { lifecycle, stores } = ctx;
  const guard = actionGuard(ctx, registry);

  /**
   * Apply with nothing named takes what the review accepts, as the console's does: every hunk
   * left but those the operator declined (README.md, "Review and apply"). A declined hunk is found
   * by what it changes, wherever a later change moved it; one the model reworked since is a new
   * hunk, and taken.
   */
  const leaveOutDeclined = (plan: Plan, files: readonly ReviewFile[], options: { paths?: string[]; hunks?: Record<string, number[]> }): { paths?: string[]; hunks?: Record<string, number[]> } => {
    const declined = plan.rejectedHunks ?? [];
    if (options.paths || options.hunks || declined.length === 0) return {};
    const paths: string[] = [];
    const hunks: Record<string, number[]> = {};
    let left = 0;
    for (const file of files) {
      const open = file.hunks.filter((h) => !h.applied);
      if (file.state === 'applied') continue;
      left += 1;
      const out = new Set(declinedHunks(declined, file.path, file.hunks));
      if (out.size === 0) paths.push(file.path);
      else if (open.some((h) => !out.has(h.index))) hunks[file.path] = open.filter((h) => !out.has(h.index)).map((h) => h.index);
    }
    if (left > 0 && paths.length === 0 && Object.keys(hunks).length === 0) {
      throw new ValidationError('hunks', `every change left in plan ${plan.id} is declined: agents plan reject-hunks ${plan.id} FILE:N --restore to accept one, or agents plan discard ${plan.id}`);
    }
    return { paths, hunks };
  };

  /** A plan applied in full or discarded cannot be rewound: its checkpoints go, and a rewind it did not finish. */
  const dropCheckpoints = async (planId: string) => {
    await stores.checkpoints.removeAfter(planId, 0);
    await stores.checkpoints.endRewind(planId);
    await clearRewindFailure(ctx, planId);
    ctx.checkpoints.forget(planId);
  };

  /** Apply, the plan held; its rule checked again, as what this process waited for may have changed the plan. */
  const applyHeld = async (planId: string, options: ApplyOptions): Promise<ApplyResult> => {
    // The phase and project first; whether failed checks need the confirmation, once the verdicts are fresh.
    let plan = await guard.requireHeld('apply', planId);
    // A test acts from another process here, while the plan is held.
    testGate(ctx.env, 'AGENTS_TEST_APPLY_GATE');
    // The rule asks for a project directory or a git project; a git project, for a target.
    checkTarget(plan, options);
    await ctx.captureHandEdits(plan);
    // Verdicts the sandbox outdated (an edit, just now or before) are not applied on: the checks run again first.
    plan = await verifying.verifyIfStale(await ctx.get(planId), options.streamCallback);
    plan = await guard.requireHeld('apply', planId, { acceptFailedChecks: options.acceptFailedChecks === true });
    // One review serves the protect check, the apply and what is left after it.
    const applied = await stores.applied.list(planId);
    const reviewed = reviewNet(await reading.changeEntries(planId), applied);
    refuseProtected(
      plan,
      reviewed.map((r) => r.file),
    );
    const selection = { paths: options.paths, hunks: options.hunks, force: options.force, ...leaveOutDeclined(plan, reviewed.map((r) => r.file), options) };
    const fromBase = async () => reviewNet(await reading.changeEntries(planId), []);
    const result = await applyAtTarget(plan, reviewed, applied, fromBase, selection, options);
    const branch = result.branch ? { branch: result.branch } : {};
    if (result.conflicts.length > 0 && !options.force) {
      const outcome: ApplyResult = { planId, applied: [], conflicts: result.conflicts, skipped: result.skipped, remaining: remainingAfter(reviewed, []), complete: false, ...branch };
      await ctx.events.publish(planId, 'apply_complete', { ok: false, ...outcome });
      return outcome;
    }
    const remaining = remainingAfter(reviewed, result.records);
    const outcome: ApplyResult = { planId, applied: result.applied, conflicts: result.conflicts, skipped: result.skipped, remaining, complete: remaining.length === 0, ...branch };
    // What was written, the plan's state and the event commit together.
    await lifecycle.unit(async () => {
      await stores.applied.record(planId, result.records);
      if (plan.processingState === 'errored') await lifecycle.reset(planId);
      const totals = { applied: (await stores.applied.list(planId)).length, remaining: remaining.length, conflicts: result.conflicts.length };
      if (remaining.length === 0) {
        await dropCheckpoints(planId);
        await lifecycle.beginPhase(planId, 'apply');
        await lifecycle.completePhase(planId, { errorDetails: { ...(await ctx.get(planId)).errorDetails, ...totals } });
      } else {
        await lifecycle.update(planId, { errorDetails: { ...(await ctx.get(planId)).errorDetails, ...totals } });
      }
      await ctx.events.publish(planId, 'apply_complete', { ok: true, ...outcome });
    });
    if (outcome.complete) await collectUnreferencedObjects(ctx);
    return outcome;
  };

  /** Discard, the plan held. */
  const discardHeld = async (planId: string): Promise<Plan> => {
    const plan = await guard.requireHeld('discard', planId);
    const partlyApplied = plan.phase === 'apply' && (await stores.applied.list(planId)).length > 0;
    const discarded = partlyApplied ? (await reading.review(planId)).files.filter((f) => f.state !== 'applied').length : 0;
    for (const ref of plan.sandboxRefs) {
      await registry.tracker.forget(ref);
      await removeSandbox(ref);
    }
    await stores.sandboxFiles.forget(planId);
    await dropCheckpoints(planId);
    if (!partlyApplied) {
      const cancelled = await lifecycle.cancel(planId);
      await collectUnreferencedObjects(ctx);
      return cancelled;
    }
    // Part of the changeset is in the project already: discarding the rest finishes the apply.
    const done = await lifecycle.unit(async () => {
      if (plan.processingState === 'errored') await lifecycle.reset(planId);
      await lifecycle.beginPhase(planId, 'apply');
      return lifecycle.completePhase(planId, { errorDetails: { ...(await ctx.get(planId)).errorDetails, remaining: 0, discarded } });
    });
    await ctx.events.publish(planId, 'apply_complete', { ok: true, planId, applied: [], conflicts: [], skipped: [], remaining: [], complete: true, discarded });
    await collectUnreferencedObjects(ctx);
    return done;
  };

  return {
    /**
     * Writes what was accepted into the project: every file with something left, or only `paths`,
     * and for the files in `hunks` only those hunks. The plan stays in apply until nothing is left
     * (or the rest is discarded), so apply can be repeated. Held while it works: no run, verify,
     * rewind or discard of the plan, from this process or another, slips in between.
     */
    async apply(planId: string, options: ApplyOptions = {}): Promise<ApplyResult> {
      await guard.require('apply', planId);
      return registry.hold(planId, () => applyHeld(planId, options));
    },

    async discard(planId: string): Promise<Plan> {
      await guard.require('discard', planId);
      return registry.hold(planId, () => discardHeld(planId));
    },
  };
}

export type PlanApplying = ReturnType<typeof planApplying>;
