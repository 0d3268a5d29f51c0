import type { Plan, RecoveryAction, StrategyDecision } from '../../../shared/domain';
import { stepsInOrder } from '../../../shared/decision-tree';
import { PlanError, ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { normalizeCheck } from '../../../shared/checks';
import { plural } from '../../../shared/vocabulary';
import { describeProfile } from '../../../shared/describe';
import { parseDefinitionOfDone } from '../../engine/run/strategize-actor';
import { loadPlanFile, loadProfile, loadStepFile } from '../plan-file';
import { requireSandboxPresent } from '../sandbox-guards';
import type { Answer, PlanContext } from './plan-context';
import type { RunOptions } from '../run-vocabulary';
import type { RunRegistry } from './run-registry';
import { actionGuard } from './actions';
import { answerHost } from '../operator';
import type { PlanRunning } from './running';
import type { PlanVerifying } from './verifying';
import type { PlanCheckpoints } from './checkpoints';

/** Fixing a failed (or queued) plan in place: skip, edit a step, change the profile, replan, correct, retry. */
export function planFixing(
  ctx: PlanContext,
  registry: RunRegistry,
  run: PlanRunning['run'],
  verifying: Pick<PlanVerifying, 'checks'>,
  checkpoints: Pick<PlanCheckpoints, 'restoreInterruptedStep'>,
) {
  const { lifecycle } = ctx;
  const guard = actionGuard(ctx, registry);

  /** The step to skip or edit, once the action's rule allows it: step `step`, else the failed one. */
  const targetStep = async (action: 'skip' | 'edit_step', planId: string, step: number | undefined): Promise<StrategyDecision> => {
    await guard.require(action, planId);
    const steps = stepsInOrder(await lifecycle.listDecisions(planId));
    if (step !== undefined && (!Number.isInteger(step) || step < 1 || step > steps.length)) {
      throw new ValidationError('step', `must be a step number from 1 to ${steps.length}`);
    }
    const target = step !== undefined ? steps[step - 1] : await ctx.failedStep(planId);
    if (!target) throw new ValidationError('step', 'no step failed; name one with --step N');
    if (target.status === 'done') throw new PlanError(`step ${steps.indexOf(target) + 1} ("${target.description}") is already done`, 'wrong_state');
    return target;
  };

  /** Records a recovery under the step (or the root), clears the current error, and leaves the plan queued to run on. */
  const recovered = async (planId: string, decisionId: string | null, action: RecoveryAction, description: string, answer: Answer): Promise<Plan> => {
    return lifecycle.unit(async () => {
      const plan = await ctx.get(planId);
      const host = answer.host ?? answerHost();
      await lifecycle.addDecisionUnder(planId, decisionId, 'error_recovery', description, `${action} by ${answer.by} on ${host}${answer.reason ? `: ${answer.reason}` : ''}`);
      await ctx.events.publish(planId, 'recovery_applied', { action, decisionId, description, by: answer.by, host });
      if (plan.processingState === 'errored' || plan.processingState === 'paused') {
        // Execute goes on from the next step not done; an errored strategize starts over.
        await lifecycle.transition(planId, 'queued', plan.decisionRootId && plan.phase === 'strategize' ? { phase: 'execute' } : {});
      }
      return await ctx.get(planId);
    });
  };

  /**
   * Replan of an agent plan without a file: the steps not done are marked skipped and the next run
   * goes back to strategize, where the model proposes them again (told what is done) for approval.
   */
  const replanByModel = async (plan: Plan, answer: Answer): Promise<Plan> => {
    if (!plan.agent) throw new ValidationError('--file', 'is required: a scripted plan takes its new steps from a plan file');
    ctx.modelConfig(plan.agent);
    const open = await lifecycle.skipOpenSteps(plan.id);
    const failed = plan.errorMessage && plan.processingState === 'errored' ? ` The last attempt failed: ${plan.errorMessage}.` : '';
    const done = stepsInOrder(await lifecycle.listDecisions(plan.id)).filter((d) => d.status === 'done');
    const agentFeedback = {
      reason: `the operator asked for new steps for what is not done yet${answer.reason ? `: ${answer.reason}` : ''}.${failed} Done already: ${done.map((d) => d.description).join('; ') || 'nothing'}.`,
      previous: open.map((d, i) => `${i + 1}. ${d.description}`).join('\n'),
    };
    const result = await recovered(plan.id, null, 'revert_to_strategize', `Replanned by the model: ${plural(open.length, 'step')} to propose again`, answer);
    // The tree's root stays; the next run strategizes again under it.
    return await lifecycle.update(plan.id, { phase: 'strategize', processingState: result.processingState, agentFeedback });
  };

  /** The failed checks' output for the model, and the step to correct: the one whose check failed, else the last step done. */
  const failedCheckOutput = async (planId: string): Promise<{ text: string; step: StrategyDecision | undefined }> => {
    const { results } = await verifying.checks(planId);
    const failed = results.filter((r) => !r.passed);
    const steps = stepsInOrder(await lifecycle.listDecisions(planId)).filter((d) => d.status !== 'skipped');
    const ownStep = failed.map((r) => steps.find((d) => d.id === r.decisionId)).find(Boolean);
    const shown = failed.map((r) => `Check "${r.name}" ($ ${r.run}) ${r.timedOut ? `ran past its time limit of ${r.timeoutSeconds} s` : r.refused ?? `exited with status ${r.exitCode}`}. Its output ends:\n${r.outputTail}`);
    return { text: `The plan's checks failed in the sandbox; make them pass.\n${shown.join('\n\n')}`, step: ownStep ?? steps.filter((d) => d.status === 'done').at(-1) };
  };

  return {
    /** Marks the failed step (or step `step`, numbered as `plan tree` shows them) skipped; the run goes on with the next one. */
    async skip(planId: string, answer: Answer & { step?: number }): Promise<Plan> {
      const target = await targetStep('skip', planId, answer.step);
      await lifecycle.saveDecisions([{ ...target, status: 'skipped', updatedAt: new Date().toISOString() }]);
      return await recovered(planId, target.id, 'skip', `Skipped step "${target.description}"`, answer);
    },

    /** Replaces the tool calls (and the description) of a step that has not completed, from a file in the plan-file format. */
    async editStep(planId: string, answer: Answer & { step: number; file: string }): Promise<Plan> {
      const target = await targetStep('edit_step', planId, answer.step);
      const number = stepsInOrder(await lifecycle.listDecisions(planId)).findIndex((d) => d.id === target.id) + 1;
      const step = loadStepFile(answer.file, ctx.registry, number);
      await lifecycle.saveDecisions([
        {
          ...target,
          description: step.step,
          rationale: step.rationale ?? target.rationale,
          toolCalls: step.tools,
          // The step file says the whole step: a check it leaves out is gone.
          check: step.check ? normalizeCheck(step.check, 'step') : null,
          status: 'pending',
          updatedAt: new Date().toISOString(),
        },
      ]);
      const calls = step.tools.map((t) => t.tool).join(', ') || 'no tool calls';
      return await recovered(planId, target.id, 'edit_step', `Edited step ${answer.step}: "${step.step}" (${calls})`, answer);
    },

    /** Changes the plan's automation profile: a built-in name, or a file with a profile as a plan file writes it. */
    async setProfile(planId: string, answer: Answer & { profile: string }): Promise<Plan> {
      const plan = await guard.require('set_profile', planId);
      const profile = loadProfile(answer.profile);
      await lifecycle.update(planId, { automationProfile: profile });
      const failed = await ctx.failedStep(planId);
      return await recovered(planId, failed?.id ?? null, 'change_profile', `Profile ${plan.automationProfile.name} -> ${profile.name}`, {
        ...answer,
        reason: answer.reason ?? describeProfile(profile),
      });
    },

    /**
     * Goes back to strategize for the steps not done: they are marked skipped and the steps of
     * `file` (a plan file) take their place. Completed steps and the changeset are kept.
     */
    async replan(planId: string, answer: Answer & { file?: string }): Promise<Plan> {
      const plan = await guard.require('replan', planId);
      if (answer.file === undefined) return await replanByModel(plan, answer);
      const { plan: file } = loadPlanFile(answer.file, ctx.registry);
      const decisions = await lifecycle.listDecisions(planId);
      const now = new Date().toISOString();
      let order = Math.max(0, ...decisions.filter((d) => d.parentId === plan.decisionRootId).map((d) => d.order)) + 1;
      const added: StrategyDecision[] = parseDefinitionOfDone(file.definitionOfDone).map((step) => ({
        id: newId(),
        planId,
        parentId: plan.decisionRootId,
        type: 'strategy_choice',
        order: order++,
        description: step.step,
        rationale: step.rationale ?? `Replanned: ${step.tools.map((t) => t.tool).join(', ') || 'no tool calls'}`,
        toolCalls: step.tools,
        ...(step.check ? { check: normalizeCheck(step.check, 'step') } : {}),
        status: 'pending',
        createdAt: now,
        updatedAt: now,
      }));
      const replaced = await lifecycle.skipOpenSteps(planId, added);
      return await recovered(planId, null, 'revert_to_strategize', `Replanned: ${plural(replaced.length, 'step')} replaced by ${added.length} from ${file.name}`, answer);
    },

    /**
     * The `correct` action: the model runs the failed step again, told of the failure and the
     * operator's note. Recorded as an error_recovery decision with action `correct`.
     */
    async correct(planId: string, answer: Answer, options: RunOptions = {}): Promise<Plan> {
      const plan = await guard.require('correct', planId);
      if (plan.agent) ctx.modelConfig(plan.agent);
      const note = answer.reason?.trim() || null;
      const checksFailed = plan.errorDetails.category === 'verification';
      // A failed check: the model is given its output; after the plan's checks, it works on the step whose check failed, else the last step.
      const failing = checksFailed ? await failedCheckOutput(planId) : null;
      // Ready to apply: nothing failed; the model reworks the last step done, told of the operator's review.
      const reviewed = plan.processingState === 'queued' && plan.phase === 'apply';
      const lastDone = async () => stepsInOrder(await lifecycle.listDecisions(planId)).filter((d) => d.status === 'done').at(-1);
      const failed = (await ctx.failedStep(planId) ?? failing?.step ?? (reviewed ? await lastDone() : undefined)) as StrategyDecision;
      if (!failed) throw new PlanError(`plan ${planId} has no step done to correct`, 'wrong_state');
      const failure = failing?.text ?? (reviewed ? 'the operator asked for a correction' : plan.errorMessage ?? 'the step failed');
      if (checksFailed || reviewed) await ctx.markChecksStale(planId, checksFailed ? 'the agent is asked to fix a failed check' : 'the agent is asked to correct the reviewed changes');
      await recovered(planId, failed.id, 'correct', `Asked the agent to fix step "${failed.description}"`, { by: answer.by, reason: note ?? undefined });
      if (plan.phase === 'apply') {
        // The step runs again in execute, and the checks after it.
        await lifecycle.saveDecisions([{ ...failed, status: 'pending', updatedAt: new Date().toISOString() }]);
        await lifecycle.update(planId, { phase: 'execute' });
      }
      return run(planId, { ...options, corrections: new Map([[failed.id, { failure, note, reviewed }]]) });
    },

    /** Re-runs the failed phase from the failed decision; decisions already done are not run again. */
    async retry(planId: string, options: RunOptions = {}): Promise<Plan> {
      const plan = await guard.require('retry', planId);
      requireSandboxPresent(plan, ctx.options);
      await ctx.pinModel(plan);
      const failed = await ctx.failedStep(planId);
      await ctx.recovery.addRecoveryDecision(
        plan,
        failed?.id ?? null,
        'Retried by the operator',
        `Manual retry of the ${plan.phase} phase${failed ? ` from step "${failed.description}"` : ''}`,
      );
      // An interrupted step goes back to its checkpoint first (the rewind leaves the plan queued, its checks stale).
      if (await checkpoints.restoreInterruptedStep(planId, `the retry of the interrupted step on ${answerHost()}`)) return run(planId, options);
      await ctx.markChecksStale(planId, 'the plan is retried');
      await lifecycle.reset(planId);
      return run(planId, options);
    },

    async reset(planId: string): Promise<Plan> {
      await guard.require('reset', planId);
      return await lifecycle.reset(planId);
    },
  };
}

export type PlanFixing = ReturnType<typeof planFixing>;
