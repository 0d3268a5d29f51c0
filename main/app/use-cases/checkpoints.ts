import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointSummary, RewindPreview, RewindResult } from '../../../shared/checkpoints';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { PlanError, ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { plural } from '../../../shared/vocabulary';
import { checkpointsThrough, foldDeltas, OBJECT_GRACE_MS } from '../../engine/checkpoints';
import type { RewindJournal, StoredCheckpoint } from '../../engine/checkpoints/checkpoint-store';
import { applyRestore, applyRestoreAsync, planRestore } from '../../engine/checkpoints/restore';
import { contentHashes } from '../../engine/checkpoints/shared-objects';
import { isLeaseLive } from '../../engine/ports/leases';
import { sandboxHere } from '../../engine/changeset/remake';
import { SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { requireSandboxPresent } from '../sandbox-guards';
import { sandboxHereFor } from '../sandbox-remaking';
import { actionGuard } from './actions';
import type { Answer, PlanContext } from './plan-context';
import type { RunRegistry } from './run-registry';

/** Takes the checkpoint of `decision`'s step as it starts, and announces it (a step that has one already keeps it). */
export async function checkpointAtStepStart(ctx: PlanContext, planId: string, sandboxRoot: string, decision: StrategyDecision): Promise<void> {
  const decisions = await ctx.lifecycle.listDecisions(planId);
  const steps = stepsInOrder(decisions);
  const step = steps.findIndex((d) => d.id === decision.id) + 1;
  if (step === 0) return;
  const checkpoint = await ctx.checkpoints.record({ plan: await ctx.get(planId), sandboxRoot, steps, decisions, decision, step });
  if (!checkpoint) return;
  const { delta: _delta, changesetId: _changesetId, decisions: _decisions, usage: _usage, planId: _planId, ...data } = checkpoint;
  await ctx.events.publish(planId, 'checkpoint_created', data);
}

/**
 * Removes the stored file contents no checkpoint names any more (a plan applied in full or
 * discarded drops its checkpoints, a rewind the later ones) once they are past the object store's
 * grace period (AGENTS_TEST_OBJECT_GRACE_MS in tests). Run as apply and discard drop checkpoints;
 * a failure is reported and never fails them: the contents are removed by a later run.
 */
export async function collectUnreferencedObjects(ctx: PlanContext): Promise<{ removed: number; bytes: number } | null> {
  const grace = ctx.env.AGENTS_TEST_OBJECT_GRACE_MS;
  try {
    // The references first, then the files: an object a checkpoint names from now on is younger than the grace period.
    return await ctx.objects.collect(await ctx.stores.checkpoints.referencedObjects(), grace === undefined ? OBJECT_GRACE_MS : Number(grace));
  } catch (error) {
    process.emitWarning(`could not remove unused checkpoint contents from ${ctx.objects.dir}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** Between a rewind's file operations: a test sets AGENTS_TEST_REWIND_PAUSE_MS to kill the process there. */
function pauseBetweenOps(env: NodeJS.ProcessEnv): (() => void) | undefined {
  const ms = Number(env.AGENTS_TEST_REWIND_PAUSE_MS ?? 0);
  if (!(ms > 0)) return undefined;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  return () => void Atomics.wait(cell, 0, 0, ms);
}

/** What stopped a rewind, in one line: a file it needed that is not there is named. */
function causeOf(error: unknown): string {
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (code === 'ENOENT' && path) return `${path} is missing`;
  return error instanceof Error ? error.message.split('\n')[0] : String(error);
}

/** A rewind finished, or the plan discarded: the failure a rewind left on the plan goes. */
export async function clearRewindFailure(ctx: PlanContext, planId: string): Promise<void> {
  const { errorDetails, errorMessage } = await ctx.get(planId);
  if (errorDetails.rewindFailed !== true) return;
  const { rewindFailed: _failed, toStep: _toStep, ...rest } = errorDetails;
  await ctx.lifecycle.update(planId, { errorDetails: rest, errorMessage: typeof errorMessage === 'string' && errorMessage.startsWith('the rewind to before step') ? null : errorMessage });
}

interface Prepared {
  plan: Plan;
  checkpoint: StoredCheckpoint;
  journal: RewindJournal;
  preview: RewindPreview;
}

/** The first step not done (or skipped): where the plan had got to. Null when every step is done. */
function reachedStep(steps: readonly StrategyDecision[]): number | null {
  const at = steps.findIndex((d) => d.status !== 'done' && d.status !== 'skipped');
  return at === -1 ? null : at + 1;
}

/** What was recorded after the checkpoint and not rewound: in its changeset past its count, then all of a later one the plan moved to. */
async function laterEntries(ctx: PlanContext, plan: Plan, checkpoint: StoredCheckpoint) {
  const from = async (changesetId: string, offset: number) => {
    const total = await ctx.stores.changesets.countEntries(changesetId);
    return (await ctx.stores.changesets.listEntryMeta(changesetId, { offset, limit: Math.max(0, total - offset) })).filter((e) => !e.rewound);
  };
  const later = checkpoint.changesetId ? await from(checkpoint.changesetId, checkpoint.entries) : [];
  return plan.changesetId && plan.changesetId !== checkpoint.changesetId ? [...later, ...(await from(plan.changesetId, 0))] : later;
}

/**
 * The journal's file operations, then its database part in one transaction: the later entries
 * marked rewound, the steps from `toStep` pending, the rewind's decision, the plan back to its
 * state, the later checkpoints dropped and the journal removed. Applied again after a crash, it
 * gives the same result (`recovered` says so in the plan, its decision and its event).
 * `filesDone`: the caller applied the file operations already (a rewind does, concurrently).
 */
async function finish(ctx: PlanContext, journal: RewindJournal, recovered: boolean, filesDone = false, interrupted = false): Promise<Plan> {
  const plan = await ctx.get(journal.planId);
  const checkpoint = (await ctx.stores.checkpoints.list(journal.planId)).find((c) => c.id === journal.checkpointId);
  if (!checkpoint) throw new PlanError(`the checkpoint of step ${journal.toStep} of plan ${journal.planId} is gone`, 'internal');
  if (!filesDone) {
    await ctx.ensureObjects(contentHashes(journal.ops));
    applyRestore(plan.sandboxRefs[0], journal.ops, ctx.objects, pauseBetweenOps(ctx.env));
  }
  const at = new Date().toISOString();
  const commit = async () => {
    const history = [...new Set((await laterEntries(ctx, plan, checkpoint)).map((e) => e.path))].sort();
    // Everything recorded after the checkpoint, as laterEntries reads it.
    let rewound = checkpoint.changesetId ? await ctx.stores.changesets.markRewound(checkpoint.changesetId, checkpoint.entries, journal.decisionId) : 0;
    if (plan.changesetId && plan.changesetId !== checkpoint.changesetId) rewound += await ctx.stores.changesets.markRewound(plan.changesetId, 0, journal.decisionId);
    const steps = stepsInOrder(await ctx.lifecycle.listDecisions(plan.id));
    // Steps the checkpoint knew that a replan replaced since (skipped, with steps it did not know after them) stay skipped.
    const lastNew = steps.findLastIndex((d) => !(d.id in checkpoint.decisions));
    const replaced = (index: number) => index < lastNew && steps[index].status === 'skipped' && steps[index].id in checkpoint.decisions;
    for (const [index, step] of steps.entries()) {
      const status = replaced(index) ? 'skipped' : index >= journal.toStep - 1 ? 'pending' : (checkpoint.decisions[step.id] ?? 'skipped');
      // A rewound step's sub-tasks were its agent's for the run undone: it lists new ones when it runs again.
      if (index >= journal.toStep - 1 && step.subtasks) await ctx.lifecycle.saveDecisionSubtasks(step.id, null);
      if (step.status === status) continue;
      await ctx.lifecycle.saveDecisionStatus({ id: step.id, status, updatedAt: at });
      await ctx.events.publish(plan.id, 'decision_status', { decisionId: step.id, status });
    }
    const target = steps[journal.toStep - 1];
    // The interrupted step runs again the calls the operator approved: their answers hold for it (an operator's rewind asks again).
    if (interrupted && target) await releaseApprovals(ctx, plan.id, target.id);
    const paths = journal.files.map((f) => f.path);
    const listed = history.length > 20 ? `${history.slice(0, 20).join(', ')} and ${history.length - 20} more` : history.join(', ');
    const from = journal.fromStep === null ? 'from the end' : `from step ${journal.fromStep}`;
    const siblings = (await ctx.lifecycle.listDecisions(plan.id)).filter((d) => d.parentId === (target?.id ?? plan.decisionRootId)).length;
    await ctx.lifecycle.saveDecisions([
      {
        id: journal.decisionId,
        planId: plan.id,
        parentId: target?.id ?? plan.decisionRootId,
        type: 'error_recovery',
        order: siblings,
        description: `Rewound to before step ${journal.toStep} (${from}): ${plural(paths.length, 'file')} put back, ${plural(rewound, 'change')} rewound`,
        rationale: `rewind by ${journal.by} at ${journal.createdAt}${recovered ? '; completed after an interruption' : ''}${history.length ? `. Changes rewound: ${listed}` : ''}`,
        toolCalls: [],
        status: 'done',
        createdAt: journal.createdAt,
        updatedAt: at,
      },
    ]);
    await clearRewindFailure(ctx, plan.id);
    const lastRewind = { toStep: journal.toStep, fromStep: journal.fromStep, by: journal.by, at, recovered };
    // The conversation after the checkpoint is dropped: the model is told only of the steps before it.
    // The plan is back on the checkpoint's changeset, whose entries before it stand: apply reads them.
    const changeset = checkpoint.changesetId ? { changesetId: checkpoint.changesetId } : {};
    const patch = { phase: 'execute' as const, usage: checkpoint.usage ?? undefined, agentSession: null, lastRewind, ...changeset };
    await ctx.lifecycle.transition(plan.id, 'queued', patch);
    await ctx.stores.checkpoints.removeAfter(plan.id, journal.toStep);
    await ctx.stores.checkpoints.endRewind(plan.id);
    await ctx.events.publish(plan.id, 'plan_rewound', {
      toStep: journal.toStep,
      fromStep: journal.fromStep,
      decisionId: journal.decisionId,
      by: journal.by,
      files: paths.length,
      entriesRewound: rewound,
      recovered,
    });
  };
  await ctx.lifecycle.unit(commit);
  ctx.checkpoints.forget(plan.id);
  // The sandbox is not what the checks saw: they run again after execute, and before apply.
  await ctx.markChecksStale(plan.id, `the plan was rewound to before step ${journal.toStep}`);
  return ctx.get(plan.id);
}

/** The approved calls of `decisionId` that its run used: answered and unused again, so the step's next run takes them. */
async function releaseApprovals(ctx: PlanContext, planId: string, decisionId: string): Promise<void> {
  for (const approval of await ctx.stores.approvals.listForPlan(planId)) {
    if (approval.kind === 'tool' && approval.decisionId === decisionId && approval.status === 'approved' && approval.usedAt !== null) {
      await ctx.stores.approvals.update(approval.id, { usedAt: null });
    }
  }
}

/**
 * A rewind that failed part way: its journal is kept (a rewind again finishes it, a discard drops
 * it) and the plan says so, which refuses every other action until then (shared/actions.ts).
 */
async function recordRewindFailure(ctx: PlanContext, journal: RewindJournal, error: unknown): Promise<string> {
  const message = `the rewind to before step ${journal.toStep} could not be finished: ${causeOf(error)}`;
  try {
    const plan = await ctx.get(journal.planId);
    await ctx.lifecycle.update(journal.planId, { errorMessage: message, errorDetails: { ...plan.errorDetails, rewindFailed: true, toStep: journal.toStep } });
  } catch {
    // The plan itself is gone: nothing to tell.
  }
  return message;
}

/** Checkpoints and rewinds: list a plan's checkpoints, say what a rewind would change, rewind. */
export function planCheckpoints(ctx: PlanContext, registry: RunRegistry) {
  const { stores, lifecycle } = ctx;
  const guard = actionGuard(ctx, registry);

  /** What a rewind of `planId` to `toStep` does, worked out against the sandbox as it is now; nothing is changed but the operator's edits recorded. */
  const prepare = async (planId: string, toStep: number, by: string, held = false): Promise<Prepared> => {
    const known = held ? await guard.requireHeld('rewind', planId) : await guard.require('rewind', planId);
    const steps = stepsInOrder(await lifecycle.listDecisions(planId));
    if (!Number.isInteger(toStep) || toStep < 1 || toStep > steps.length) {
      throw new ValidationError('toStep', `${toStep} is out of range: plan ${planId} has steps 1 to ${steps.length}`);
    }
    const chain = await checkpointsThrough(stores.checkpoints, planId, toStep);
    if (!chain) {
      const last = (await stores.checkpoints.summaries(planId)).at(-1)?.step ?? 0;
      throw new ValidationError('toStep', `step ${toStep} has no checkpoint: it has not started yet (plan ${planId} has checkpoints before steps 1 to ${last})`);
    }
    requireSandboxPresent(known);
    const sandboxRoot = known.sandboxRefs[0];
    // The operator's edits since the last run are recorded first: they are among what the rewind undoes.
    // After a rewind that did not finish, what differs is its half-done restore, not the operator's edits (those it recorded).
    if (!(await stores.checkpoints.pendingRewinds()).some((j) => j.planId === planId)) await ctx.captureHandEdits(known);
    const plan = await ctx.get(planId);
    const checkpoint = chain[chain.length - 1];
    const { ops, files } = await planRestore(sandboxRoot, foldDeltas(chain.map((c) => c.delta)));
    const later = await laterEntries(ctx, plan, checkpoint);
    const operatorEdits = [...new Set(later.filter((e) => e.origin === 'operator').flatMap((e) => (e.oldPath ? [e.path, e.oldPath] : [e.path])))].sort();
    const edited = new Set(operatorEdits);
    const changed = files.map((f) => ({ ...f, editedByOperator: edited.has(f.path) }));
    const preview: RewindPreview = { planId, toStep, steps: steps.length - toStep + 1, files: changed, operatorEdits, entriesRewound: later.length };
    const journal: RewindJournal = {
      planId,
      checkpointId: checkpoint.id,
      toStep,
      fromStep: reachedStep(steps),
      decisionId: newId(),
      by,
      ops,
      files: changed,
      createdAt: new Date().toISOString(),
    };
    return { plan, checkpoint, journal, preview };
  };

  return {
    /** The plan's checkpoints, oldest first. */
    async checkpoints(planId: string): Promise<CheckpointSummary[]> {
      await ctx.get(planId);
      return stores.checkpoints.summaries(planId);
    },

    /** What a rewind to before step `toStep` would change, for the operator to confirm; nothing is changed. */
    async rewindPreview(planId: string, toStep: number): Promise<RewindPreview> {
      if (!ctx.options.remakeSandboxes) return (await prepare(planId, toStep, '')).preview;
      // In team mode the sandbox may live on another machine: remade here first, holding the plan.
      await guard.require('rewind', planId);
      return registry.hold(planId, async () => {
        await sandboxHereFor(ctx, await ctx.get(planId));
        return (await prepare(planId, toStep, '', true)).preview;
      });
    },

    /**
     * Puts the plan back to before step `toStep`: the sandbox exactly as the checkpoint holds it, the
     * later changes rewound (kept, never applied), the steps from there pending, the conversation
     * after it dropped. Journaled, so a crash leaves it as before or as after.
     */
    async rewind(planId: string, answer: Answer & { toStep: number }): Promise<{ plan: Plan; rewind: RewindResult }> {
      await guard.require('rewind', planId);
      // Held from before the first await: no run, verify or apply of the plan starts while the rewind works out and applies its operations.
      return registry.hold(planId, async () => {
        // Wherever the plan last ran: its sandbox remade on this machine when it is not here (team mode).
        await sandboxHereFor(ctx, await ctx.get(planId));
        const prepared = await prepare(planId, answer.toStep, answer.by, true);
        // Checked again on the plan as it is now: it may have changed while the sandbox was compared.
        await guard.requireHeld('rewind', planId);
        await stores.checkpoints.beginRewind(prepared.journal);
        let plan: Plan;
        try {
          // The files first, removals several at once; held, so nothing else touches the plan meanwhile.
          await ctx.ensureObjects(contentHashes(prepared.journal.ops));
          await applyRestoreAsync(prepared.plan.sandboxRefs[0], prepared.journal.ops, ctx.objects, pauseBetweenOps(ctx.env));
          plan = await finish(ctx, prepared.journal, false, true);
        } catch (error) {
          const message = await recordRewindFailure(ctx, prepared.journal, error);
          throw new PlanError(`plan ${planId}: ${message}; agents plan rewind ${planId} --to-step ${answer.toStep} to try again, or agents plan discard ${planId}`, 'rewind_failed');
        }
        return { plan, rewind: { ...prepared.preview, decisionId: prepared.journal.decisionId } };
      });
    },

    /**
     * A plan interrupted in a step that had started (its process died, its worker was taken over, the
     * operator pressed Ctrl-C) goes back to that step's checkpoint before the step runs again, so it
     * runs on the tree it first ran on: what the step had written is rewound (an append, a counter,
     * a migration is not applied twice), and the decision tree says so. Nothing of the sandbox is
     * taken for the operator's edits: since the step started, the step is what wrote there. The
     * files are put back where the sandbox is this machine's; elsewhere the remake that follows
     * builds it without the rewound changes. True when it restored (the plan is then queued).
     */
    async restoreInterruptedStep(planId: string, by: string): Promise<boolean> {
      const plan = await ctx.get(planId);
      if (plan.processingState !== 'errored' || plan.errorDetails.category !== 'interrupted' || plan.phase !== 'execute') return false;
      const steps = stepsInOrder(await lifecycle.listDecisions(planId));
      const failed = steps.findIndex((d) => d.status === 'failed' || d.status === 'running');
      if (failed === -1) return false;
      const toStep = failed + 1;
      const chain = await checkpointsThrough(stores.checkpoints, planId, toStep);
      const checkpoint = chain?.at(-1);
      if (!chain || checkpoint?.step !== toStep) return false;
      const root = plan.sandboxRefs[0];
      const here = !!root && existsSync(root) && (!ctx.options.remakeSandboxes || sandboxHere(root, join(ctx.options.dataDir, SANDBOXES_FOLDER), planId));
      return registry.hold(planId, async () => {
        const { ops, files } = here ? await planRestore(root, foldDeltas(chain.map((c) => c.delta))) : { ops: [], files: [] };
        const journal: RewindJournal = {
          planId,
          checkpointId: checkpoint.id,
          toStep,
          fromStep: toStep,
          decisionId: newId(),
          by,
          ops,
          files: files.map((f) => ({ ...f, editedByOperator: false })),
          createdAt: new Date().toISOString(),
        };
        await stores.checkpoints.beginRewind(journal);
        try {
          await ctx.ensureObjects(contentHashes(ops));
          if (here) await applyRestoreAsync(root, ops, ctx.objects, pauseBetweenOps(ctx.env));
          await finish(ctx, journal, false, true, true);
        } catch (error) {
          const message = await recordRewindFailure(ctx, journal, error);
          throw new PlanError(`plan ${planId}: ${message}; agents plan rewind ${planId} --to-step ${toStep} to try again, or agents plan discard ${planId}`, 'rewind_failed');
        }
        return true;
      });
    },

    /**
     * Rolls forward the rewinds a process died in (their journal is there and no live process holds
     * the plan). One that fails again is kept for the next open and its cause put on the plan
     * (`plan show` says it): it never stops the other plans, or the app, from opening. With
     * `planId`, only that plan's (a worker taking over a run whose last attempt died in a restore).
     */
    async finishInterruptedRewinds(planId?: string): Promise<string[]> {
      const finished: string[] = [];
      for (const journal of await stores.checkpoints.pendingRewinds()) {
        if (planId && journal.planId !== planId) continue;
        const lease = await stores.leases.get(journal.planId);
        if (lease && lease.pid !== process.pid && isLeaseLive(lease)) continue;
        try {
          await registry.hold(journal.planId, () => finish(ctx, journal, true));
          finished.push(journal.planId);
        } catch (error) {
          await recordRewindFailure(ctx, journal, error);
        }
      }
      return finished;
    },
  };
}

export type PlanCheckpoints = ReturnType<typeof planCheckpoints>;
