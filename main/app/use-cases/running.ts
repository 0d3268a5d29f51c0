import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Plan } from '../../../shared/domain';
import { PlanError, ValidationError } from '../../../shared/errors';
import { ApprovalGate } from '../../engine/gates/approval-gate';
import { classifyError } from '../../engine/run/error-recovery-service';
import { ApprovalPending } from '../../engine/errors';
import type { PlanExecutionContext } from '../../engine/run/execution-context';
import { InvariantRules } from '../../engine/gates/invariants';
import type { PlanExecutor } from '../../engine/run/plan-executor';
import { reviewProposedTree } from '../../engine/gates/proposed-tree';
import { removeTemporaryFiles } from '../../engine/sandbox/files';
import { markInterrupted } from '../leases';
import { RunController } from '../run-controller';
import { requireSandboxPresent } from '../sandbox-guards';
import type { PlanContext } from './plan-context';
import type { ExecutorFactory, RunDispatch, RunOptions } from '../run-vocabulary';
import type { ResumeAt } from '../../engine/ports/approvals';
import type { RunRegistry } from './run-registry';
import { actionGuard } from './actions';
import type { PlanVerifying } from './verifying';
import { recordFailure } from './failures';

/** Where a run resumes: the call an approval answered. */


/** Running plans: start, resume, stop, and the step controls of a run in this process. */
export function planRunning(ctx: PlanContext, registry: RunRegistry, executorFor: ExecutorFactory, verifyPass: PlanVerifying['verifyPass']) {
  const { lifecycle, stores } = ctx;

  const track = (planId: string, options: RunOptions, plan: Plan, body: (executor: PlanExecutor, controller: RunController, plan: Plan) => Promise<void>): Promise<Plan> => {
    if (registry.runs.has(planId)) throw new PlanError(`plan ${planId} is already running`, 'wrong_state');
    requireSandboxPresent(plan, ctx.options);
    const lease = stores.leases;
    let context: PlanExecutionContext | null = null;
    let close: (() => Promise<void>) | undefined;
    // Entered in `runs` before its first await: no other task of this process starts the plan meanwhile.
    const run = (async () => {
      if (!(await lease.acquire(planId, process.pid, hostname()))) {
        registry.runs.delete(planId);
        throw new PlanError(`plan ${planId} is being run by another process`, 'wrong_state');
      }
      const heartbeat = setInterval(() => void lease.heartbeat(planId, process.pid).catch(() => undefined), ctx.options.heartbeatMs ?? 2_000);
      heartbeat.unref();
      const controller = new RunController(planId, lifecycle, { step: options.step, breakpoints: options.breakpoints });
      registry.controllers.set(planId, controller);
      options.onStarted?.();
      try {
        const made = await executorFor(plan, options);
        const { executor, plan: ready } = made;
        close = made.close;
        context = executor.executionContext;
        await body(executor, controller, ready);
      } catch (error) {
        // The executor records its failures on the plan, and a plan waiting for an approval is paused. Anything
        // else (making the sandbox, or a bug) is recorded here, so every client sees a plan error; a bug is also thrown to the log.
        const state = (await ctx.get(planId)).processingState;
        if (state !== 'errored' && !(state === 'paused' && error instanceof ApprovalPending)) {
          const recorded = await recordFailure(ctx, planId, error);
          if (!recorded || classifyError(error) === 'internal') throw error;
        }
      } finally {
        // What the run started (its MCP servers) stops with it, before its sandbox is read.
        await close?.().catch(() => undefined);
        // What the run left is what the next capture compares against: files it wrote are not read again then.
        // A run that ended before it resumed its changeset records into the plan's, never a new one.
        const ran = context as PlanExecutionContext | null;
        if (ran?.sandboxRoot) {
          const ended = { id: planId, projectPath: plan.projectPath, sandboxRefs: [ran.sandboxRoot], changesetId: ran.activeChangesetId ?? plan.changesetId ?? null };
          await ctx.captureHandEdits(ended).catch(() => undefined);
        }
        clearInterval(heartbeat);
        await lease.release(planId, process.pid);
        registry.controllers.delete(planId);
        registry.runs.delete(planId);
      }
      return ctx.get(planId);
    })();
    registry.runs.set(planId, run);
    return run;
  };

  /** The project's `.agents/invariants.yaml`, read once at strategize and kept on the plan. */
  const recordProjectInvariants = async (plan: Plan): Promise<Plan> => {
    // The YAML parser is loaded by the first run that reads a project's rules, not by every start.
    const invariants = plan.projectPath ? (await import('../plan-file')).loadProjectInvariants(plan.projectPath) : null;
    return invariants ? lifecycle.update(plan.id, { projectInvariants: invariants }) : plan;
  };

  /**
   * Runs what is left of the plan. The plan is read once per phase: the copy read here (or by the
   * caller) serves strategize, one read after strategize serves execute, and each phase carries the
   * plan the lifecycle hands back instead of reading the store again.
   */
  const runFrom = async (planId: string, options: RunOptions, resumeAt?: ResumeAt, known?: Plan): Promise<Plan> => {
    if (ctx.options.dispatch) return dispatchRun(ctx.options.dispatch, planId, options, resumeAt);
    if (options.detach) throw new ValidationError('detach', 'needs a team database (--database URL or AGENTS_DATABASE_URL): without one the run is this process');
    let plan = known ?? (await ctx.get(planId));
    const step = options.step ?? plan.automationProfile.pauseBeforeEachDecision;
    // Read before the run starts, so a broken invariants file is bad input, and the context carries the rules.
    if (plan.phase === 'strategize') plan = await recordProjectInvariants(plan);
    const ports = { lifecycle, approvals: stores.approvals, events: ctx.events };
    return track(planId, { ...options, step }, plan, async (executor, controller, planNow) => {
      if (planNow.phase === 'strategize') await executor.runStrategize(planId, { streamCallback: options.streamCallback, plan: planNow });
      // The proposed tree's approval, and the wait for it, are told to whoever follows the run.
      const reviewTree = () => ctx.streaming(planId, options.streamCallback, () => reviewProposedTree(ports, planId));
      let review = await reviewTree();
      for (; review.next !== 'execute'; review = await reviewTree()) {
        if (review.next === 'wait') {
          // Stopped between strategize and execute, as a tool call's approval stops before the call.
          await lifecycle.transition(planId, 'processing');
          await ctx.streaming(planId, options.streamCallback, () => lifecycle.transition(planId, 'paused', { waitingFor: 'approval' }));
          throw new ApprovalPending(review.approvalId);
        }
        await executor.runStrategize(planId, { streamCallback: options.streamCallback });
      }
      // The review's read of the plan serves execute.
      const plan = review.plan;
      const sandboxRoot = executor.executionContext?.sandboxRoot ?? null;
      const rules = plan.projectInvariants ? new InvariantRules(plan.projectInvariants) : undefined;
      await executor.runExecute(planId, {
        plan,
        streamCallback: options.streamCallback,
        beforeDecision: controller.beforeDecision,
        onStepStart: sandboxRoot ? async (decision) => (await import('./checkpoints')).checkpointAtStepStart(ctx, planId, sandboxRoot, decision) : undefined,
        gate: new ApprovalGate(stores.approvals, ctx.events, planId, plan.automationProfile, sandboxRoot, rules),
        resumeAt,
        rules,
      });
      // Verify before apply: the plan's checks run in the sandbox it executed in.
      await verifyPass(planId, options.streamCallback);
    });
  };

  /** Team mode: the run is queued for a worker; followed here to its end unless detached or nobody listens. */
  const dispatchRun = async (dispatch: RunDispatch, planId: string, options: RunOptions, resumeAt?: ResumeAt): Promise<Plan> => {
    if (options.step) throw new ValidationError('step', 'is not available in team mode: a worker runs the plan, and only its approvals stop it');
    const from = await dispatch.lastSeq(planId);
    const reason = resumeAt ? 'approval answered' : options.corrections ? 'correct' : 'run';
    await dispatch.enqueue(planId, { reason, resumeAt, breakpoints: options.breakpoints, corrections: options.corrections ? [...options.corrections] : undefined });
    options.onStarted?.();
    if (options.detach || !options.streamCallback) return ctx.get(planId);
    return dispatch.follow(planId, from, options.streamCallback);
  };

  return {
    runFrom,

    /** Strategize (if not done) and execute; stops before apply. Resolves when the run ends. */
    async run(planId: string, options: RunOptions = {}): Promise<Plan> {
      const plan = await ctx.pinModel(await actionGuard(ctx, registry).require('run', planId));
      return runFrom(planId, options, undefined, plan);
    },

    /**
     * The operator stopped the run (Ctrl-C): the plan is marked interrupted, as a run whose process
     * died is at the next start, and no half-written temporary file stays in its sandbox. Retry resumes it.
     */
    async interrupt(planId: string): Promise<Plan> {
      // A coding agent's turn is told to stop (session/cancel), and its process group ended.
      if ((await ctx.get(planId)).acp) await (await import('../../engine/acp/acp-connection')).AcpConnection.interrupt(planId);
      await markInterrupted(lifecycle, stores.errors, await ctx.get(planId), 'Stopped by the operator (Ctrl-C)');
      await stores.leases.release(planId, process.pid);
      const plan = await ctx.get(planId);
      for (const root of plan.sandboxRefs) if (existsSync(root)) removeTemporaryFiles(root);
      return plan;
    },

    controller: registry.controller.bind(registry),
    isRunning: registry.isRunning.bind(registry),
    idle: registry.idle.bind(registry),
  };
}

export type PlanRunning = ReturnType<typeof planRunning>;
