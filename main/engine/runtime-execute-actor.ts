import { type RuntimeExecuteResult, RuntimeExecuteResultSchema, type StrategyDecision, type AutomationProfile, type DecisionStatus } from '../../shared/domain';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import type { StreamCallback } from '../../shared/events';
import { toChangeEntry } from './change-capture';
import { EventPublisher } from './event-stream';
import type { PlanExecutionContext } from './execution-context';
import type { ToolRunner } from './tool-runner';

export function createRuntimeExecuteResult(data: unknown): RuntimeExecuteResult {
  return parseOrThrow(RuntimeExecuteResultSchema, data, 'RuntimeExecuteResult');
}

/** Decisions that carry work: the root and recovery notes are not executed. */
export function executableDecisions(decisions: readonly StrategyDecision[]): StrategyDecision[] {
  return decisions.filter((d) => d.type === 'strategy_choice');
}

export interface RuntimeExecuteOptions {
  streamCallback?: StreamCallback;
  profile?: AutomationProfile;
  /** Called whenever a decision's status changes, so it can be persisted. */
  onDecisionStatus?: (decision: StrategyDecision, status: DecisionStatus) => void;
  /** Awaited before each decision runs; step mode and breakpoints wait here, never mid-tool-call. */
  beforeDecision?: (decision: StrategyDecision, index: number, total: number) => Promise<void>;
}

export interface RuntimeExecuteActorOptions {
  toolRunner: ToolRunner | null | undefined;
  executionContext: PlanExecutionContext | null | undefined;
  events?: EventPublisher;
}

/** Executes strategy decisions through the ToolRunner and captures every change into the context's store. */
export class RuntimeExecuteActor {
  readonly toolRunner: ToolRunner;
  readonly executionContext: PlanExecutionContext;
  private readonly events: EventPublisher;

  constructor(options: RuntimeExecuteActorOptions) {
    if (!options.toolRunner) throw new ValidationError('tool_runner', 'is required');
    if (!options.executionContext) throw new ValidationError('execution_context', 'is required');
    this.toolRunner = options.toolRunner;
    this.executionContext = options.executionContext;
    this.events = options.events ?? new EventPublisher();
  }

  async execute(decisions: readonly StrategyDecision[], options: RuntimeExecuteOptions | StreamCallback = {}): Promise<RuntimeExecuteResult> {
    const opts = typeof options === 'function' ? { streamCallback: options } : options;
    const context = this.executionContext;
    const emit = this.events.emitterFor(context.planId, opts.streamCallback);
    const started = performance.now();
    const changesetId = context.activeChangesetId ?? context.startChangeset();
    const sandboxRefs = context.sandboxRoot ? [context.sandboxRoot] : [];
    const todo = decisions.filter((d) => d.status !== 'done' && d.status !== 'skipped');
    const setStatus = (decision: StrategyDecision, status: DecisionStatus) => {
      decision.status = status;
      decision.updatedAt = new Date().toISOString();
      opts.onDecisionStatus?.(decision, status);
      emit('decision_status', { decisionId: decision.id, status });
    };

    emit('runtime_execute_started', { changesetId, decisionCount: todo.length, sandboxRoot: context.sandboxRoot });
    let toolCallCount = 0;
    const processed: string[] = [];
    for (const [index, decision] of todo.entries()) {
      await opts.beforeDecision?.(decision, index, todo.length);
      emit('runtime_execute_step', { decisionId: decision.id, index: index + 1, total: todo.length, description: decision.description });
      setStatus(decision, 'running');
      const calls = decision.toolCalls;
      // Whether the previous call's commit already announced this one (see onSettled).
      let announced = false;
      for (const [callIndex, call] of calls.entries()) {
        if (!announced) emit('tool_call_started', { decisionId: decision.id, tool: call.tool, args: call.args });
        announced = false;
        toolCallCount += 1;
        try {
          await this.toolRunner.execute(call, {
            planId: context.planId,
            decisionId: decision.id,
            sandboxRoot: context.sandboxRoot,
            profile: opts.profile,
            recordChange: (change, invocationId) => {
              const entry = toChangeEntry(change, { decisionId: decision.id, invocationId });
              context.recordChange(entry);
              emit('change_recorded', { decisionId: decision.id, entryId: entry.id, path: entry.path, operation: entry.operation });
            },
            // The call's entries, invocation and events commit together; subscribers hear of them after the commit.
            atomically: (fn) => this.events.deferDelivery(() => context.atomically(fn)),
            onSettled: (invocation) => {
              emit('tool_call_finished', {
                decisionId: decision.id,
                invocationId: invocation.id,
                tool: call.tool,
                ok: invocation.ok,
                durationMs: invocation.durationMs,
                ...(invocation.ok ? {} : { error: invocation.error }),
              });
              // The next call of the decision starts right after this one settles: announcing it in
              // this commit saves a commit per call. A failed call has no next one.
              const next = calls[callIndex + 1];
              announced = invocation.ok && next !== undefined;
              if (announced) emit('tool_call_started', { decisionId: decision.id, tool: next.tool, args: next.args });
            },
          });
        } catch (error) {
          setStatus(decision, 'failed');
          throw error;
        }
      }
      setStatus(decision, 'done');
      processed.push(decision.id);
    }
    const result = createRuntimeExecuteResult({
      changesetId,
      toolCallCount,
      sandboxRefs,
      decisionIdsProcessed: processed,
      executionDurationMs: performance.now() - started,
    });
    emit('runtime_execute_complete', { ...result });
    return result;
  }
}
