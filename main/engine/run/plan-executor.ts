import type { ExecuteResult, Phase, Plan, RuntimeExecuteResult, StrategyDecision } from '../../../shared/domain';
import { PlanError, ValidationError } from '../../../shared/errors';
import type { StreamCallback } from '../../../shared/events';
import type { ChangeSetStore } from '../ports/changeset-store';
import type { Emit } from '../ports/event-stream';
import { ExecuteStubActor } from './execute-stub-actor';
import type { PlanExecutionContext } from './execution-context';
import type { PlanLifecycleService } from './lifecycle';
import type { ApprovalGate } from '../gates/approval-gate';
import { ApprovalPending } from '../errors';
import type { InvariantRules } from '../gates/invariants';
import type { ErrorRecovery } from '../ports/recovery';
import { executableDecisions, RuntimeExecuteActor, type StepRunner } from './runtime-execute-actor';
import { type StrategizeResult, StrategizeStubActor } from './strategize-actor';
import type { ToolRunner } from './tool-runner';
import type { ResumeAt } from '../ports/approvals';

/** Proposes a plan's decision tree: the stub copies the plan's steps, a model reads and plans. */
export interface Strategizer {
  strategize(plan: Plan, projectInvariants: readonly string[], emit: Emit): StrategizeResult | Promise<StrategizeResult>;
}

export interface PlanExecutorOptions {
  /** Default: the stub actor, which copies the plan file's steps into the tree. */
  strategizer?: Strategizer;
  /** How each decision is carried out in runtime mode; default: its scripted tool calls. */
  stepRunner?: StepRunner;
  lifecycleService: PlanLifecycleService | null | undefined;
  toolRunner?: ToolRunner;
  executionContext?: PlanExecutionContext | null;
  errorRecoveryService?: ErrorRecovery | null;
  /** Waits between automatic retries; tests pass a fake clock. */
  sleep?: (ms: number) => Promise<void>;
}

/** What a caller gives one phase's run (strategize or execute). */
export interface PhaseOptions {
  /** The plan as the caller just read it, so the phase need not read it again. */
  plan?: Plan;
  streamCallback?: StreamCallback;
  /** Awaited before each execute decision: step mode and breakpoints. */
  beforeDecision?: (decision: StrategyDecision, index: number, total: number) => Promise<void>;
  /** Awaited as each execute decision starts, after beforeDecision: where a checkpoint is taken. */
  onStepStart?: (decision: StrategyDecision) => Promise<void>;
  /** Approvals: the gate that holds calls for the operator, and where a run that stopped for one goes on. */
  gate?: ApprovalGate;
  resumeAt?: ResumeAt;
  rules?: InvariantRules;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function requirePlanId(planId: unknown): asserts planId is string {
  if (typeof planId !== 'string' || planId.trim() === '') throw new ValidationError('planId', 'is required and must be a non-empty string');
}

function describeError(error: unknown) {
  const err = error instanceof Error ? error : new Error(String(error));
  return { message: err.message, exceptionType: err.name, traceback: err.stack ?? `${err.name}: ${err.message}` };
}

/** Drives a plan through strategize and execute, with phase guards, error capture and optional retry. */
export class PlanExecutor {
  readonly lifecycle: PlanLifecycleService;
  /** Null when no runner was given: the stub path then runs no tool calls, and the runtime path refuses to start. */
  readonly toolRunner: ToolRunner | null;
  private readonly context: PlanExecutionContext | null;
  private readonly recovery: ErrorRecovery | null;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly strategizer: Strategizer;
  private readonly stepRunner: StepRunner | undefined;

  constructor(options: PlanExecutorOptions) {
    if (!options?.lifecycleService) throw new ValidationError('lifecycleService', 'is required');
    this.lifecycle = options.lifecycleService;
    this.toolRunner = options.toolRunner ?? null;
    this.context = options.executionContext ?? null;
    this.recovery = options.errorRecoveryService ?? null;
    this.sleep = options.sleep ?? defaultSleep;
    this.strategizer = options.strategizer ?? new StrategizeStubActor();
    this.stepRunner = options.stepRunner;
  }

  get hasRuntime(): boolean {
    return this.context !== null;
  }

  get changesetStore(): ChangeSetStore | null {
    return this.context?.changesetStore ?? null;
  }

  get executionContext(): PlanExecutionContext | null {
    return this.context;
  }

  async runStrategize(planId: string, options: PhaseOptions = {}): Promise<StrategizeResult> {
    requirePlanId(planId);
    return this.streaming(planId, options.streamCallback, () => this.strategize(planId, options.plan));
  }

  async runExecute(planId: string, options: PhaseOptions = {}): Promise<RuntimeExecuteResult | ExecuteResult> {
    requirePlanId(planId);
    return this.streaming(planId, options.streamCallback, () => this.execute(planId, options));
  }

  /** Hands every event of the plan (state changes included) to the run's callback while it runs. */
  private async streaming<T>(planId: string, callback: StreamCallback | undefined, body: () => Promise<T>): Promise<T> {
    const unsubscribe = callback ? this.lifecycle.events.subscribe((event) => event.planId === planId && callback(event)) : undefined;
    try {
      return await body();
    } finally {
      unsubscribe?.();
    }
  }

  /** The plan is read once for the phase (or taken from the caller, who just read it), then carried along. */
  private async strategize(planId: string, known?: Plan): Promise<StrategizeResult> {
    const plan = await this.lifecycle.beginPhase(planId, 'strategize', ['queued'], known?.id === planId ? known : undefined);
    const emit = this.lifecycle.events.emitterFor(planId);
    return this.withRecovery(planId, 'strategize', 'strategize', emit, () => null, null, async () => {
      await emit('strategize_started', {});
      const projectInvariants = (this.context?.projectResources.invariants as string[] | undefined) ?? [];
      const result = await this.strategizer.strategize(plan, projectInvariants, emit);
      await this.lifecycle.saveDecisions(result.decisions);
      await emit('strategize_decisions', {
        decisionRootId: result.decisionRootId,
        decisionCount: result.decisions.length,
        invariantRecords: result.invariantRecords,
      });
      await this.lifecycle.completePhase(planId, { decisionRootId: result.decisionRootId }, plan);
      await emit('strategize_complete', { decisionRootId: result.decisionRootId });
      return result;
    });
  }

  private async execute(planId: string, options: PhaseOptions): Promise<RuntimeExecuteResult | ExecuteResult> {
    const { beforeDecision, onStepStart, gate, resumeAt, rules } = options;
    const plan = options.plan?.id === planId ? options.plan : await this.lifecycle.getPlan(planId);
    if (!plan.decisionRootId) {
      throw new PlanError(`plan ${planId} has not completed strategize; run strategize first`, 'strategize_incomplete');
    }
    if (this.context && this.context.planId !== planId) {
      throw new PlanError(`this executor's context belongs to plan ${this.context.planId}, not ${planId}`, 'wrong_context');
    }
    let running = await this.lifecycle.beginPhase(planId, 'execute', ['queued'], plan);
    const emit = this.lifecycle.events.emitterFor(planId);
    let failedDecision: string | null = null;
    const onDecisionStatus = async (decision: StrategyDecision) => {
      if (decision.status === 'failed') failedDecision = decision.id;
      await this.lifecycle.saveDecisionStatus(decision);
    };
    const mode = this.context ? 'runtime' : 'stub';
    // Counted over every pass: a transient failure's retry is a new pass of the same run.
    const tally = { toolCalls: 0, startedAt: performance.now() };
    return this.withRecovery(planId, 'execute', mode, emit, () => failedDecision, resumeAt?.decisionId ?? null, async () => {
      failedDecision = null;
      const decisions = executableDecisions(await this.lifecycle.listDecisions(planId));
      if (!this.context) {
        const result = await new ExecuteStubActor(this.toolRunner, this.lifecycle.events).execute(planId, decisions);
        await this.lifecycle.completePhase(
          planId,
          {
            changesetId: result.changesetId,
            sandboxRefs: result.sandboxRefs,
            errorDetails: { ...running.errorDetails, toolCallCount: result.toolCallsCount, sandboxRefCount: result.sandboxRefs.length },
          },
          running,
        );
        return result;
      }
      const context = this.context;
      if (!this.toolRunner) throw new ValidationError('toolRunner', 'is required to execute with an execution context');
      context.decisionRootId = plan.decisionRootId;
      if (running.changesetId && !context.activeChangesetIds.includes(running.changesetId)) await context.resumeChangeset(running.changesetId);
      if (!context.activeChangesetId) {
        const changesetId = await context.startChangeset();
        running = await this.lifecycle.update(planId, { changesetId, sandboxRefs: context.sandboxRoot ? [context.sandboxRoot] : [] });
      }
      const actor = new RuntimeExecuteActor({ toolRunner: this.toolRunner, executionContext: context, events: this.lifecycle.events });
      const result = await actor.execute(decisions, {
        profile: running.automationProfile,
        onDecisionStatus,
        beforeDecision,
        onStepStart,
        gate,
        resumeAt,
        rules,
        stepRunner: this.stepRunner,
        tally,
      });
      await this.lifecycle.completePhase(
        planId,
        {
          changesetId: result.changesetId,
          sandboxRefs: result.sandboxRefs,
          errorDetails: { ...running.errorDetails, toolCallCount: result.toolCallCount, sandboxRefCount: result.sandboxRefs.length },
        },
        running,
      );
      return result;
    });
  }

  /**
   * Runs a phase body; on failure asks the recovery service whether to retry, else marks the plan
   * errored. Attempts are counted per step, so each step has the profile's whole allowance; the
   * step a run resumes after an approval goes on from the automatic retries it already had.
   */
  private async withRecovery<T>(
    planId: string,
    phase: Phase,
    mode: 'strategize' | 'runtime' | 'stub',
    emit: Emit,
    failedDecision: () => string | null,
    resumedStep: string | null,
    body: () => Promise<T>,
  ): Promise<T> {
    const failures = new Map<string | null, number>();
    if (resumedStep !== null && this.recovery) failures.set(resumedStep, await this.recovery.retriedSoFar(planId, phase, resumedStep));
    for (;;) {
      try {
        return await body();
      } catch (error) {
        if (error instanceof ApprovalPending) {
          await this.lifecycle.transition(planId, 'paused', { waitingFor: 'approval' });
          throw error;
        }
        const decisionId = failedDecision();
        const attempt = (failures.get(decisionId) ?? 0) + 1;
        failures.set(decisionId, attempt);
        const described = describeError(error);
        const base = { exceptionType: described.exceptionType, traceback: described.traceback, mode, phase, decisionId, attempt };
        const verdict = await this.recovery?.onFailure({ plan: await this.lifecycle.getPlan(planId), phase, error, attempt, decisionId, mode });
        if (verdict?.retry) {
          await emit('retry_scheduled', { phase, decisionId, attempt: attempt + 1, delayMs: verdict.delayMs, error: described.message, ...verdict.details });
          await this.sleep(verdict.delayMs);
          continue;
        }
        await this.lifecycle.fail(planId, described.message, { ...base, ...verdict?.details });
        throw error;
      }
    }
  }
}
