import { eventLoopYielder } from './event-loop-yield';
import { type RuntimeExecuteResult, RuntimeExecuteResultSchema, type StrategyDecision, type DecisionStatus } from '../../../shared/domain';
import type { AutomationProfile } from '../../../shared/profiles';
import type { ToolCallSpec, ToolInvocation } from '../../../shared/tool-calls';
import { parseOrThrow, ValidationError } from '../../../shared/errors';
import type { EventData, StreamCallback, StreamEventType } from '../../../shared/events';
import type { ApprovalGate, CallAliases, GrantScope } from '../gates/approval-gate';
import { CommitGroup, type CommitGroupOptions } from './commit-group';
import { ApprovalPending } from '../errors';
import type { InvariantRules } from '../gates/invariants';
import { toChangeEntry } from './change-capture';
import type { EventPublisher } from '../ports/event-stream';
import type { PlanExecutionContext } from './execution-context';
import type { ToolRunner } from './tool-runner';
import type { ToolEffect } from '../tools/definition';
import type { ResumeAt } from '../ports/approvals';

/** Progress reports of one call closer together than this are not recorded. */
const PROGRESS_INTERVAL_MS = 250;

export function createRuntimeExecuteResult(data: unknown): RuntimeExecuteResult {
  return parseOrThrow(RuntimeExecuteResultSchema, data, 'RuntimeExecuteResult');
}

/** Decisions that carry work: the root and recovery notes are not executed. */
export function executableDecisions(decisions: readonly StrategyDecision[]): StrategyDecision[] {
  return decisions.filter((d) => d.type === 'strategy_choice');
}

/**
 * Runs one call through the approval gate and the ToolRunner, with the run's change capture and
 * bookkeeping; throws ToolCallError, or ApprovalPending when the call waits for the operator.
 * `callIndex` is the call's position in its step, which an approval is bound to.
 */
export type RunToolCall = (call: ToolCallSpec, callIndex: number, options?: { approved?: boolean }) => Promise<ToolInvocation>;

/**
 * Holds a call the approval gate would hold, without running it: resolves when it may run (with the
 * scope of the operator's approval, if one was needed), throws ApprovalPending when it waits for the
 * operator, or the rejection. An agent that asks before it acts (a coding agent over ACP) asks here,
 * with the other names its call is known by; what it then does is recorded with `approved: true`.
 */
export type AskToolCall = (call: ToolCallSpec, callIndex: number, effect: ToolEffect | undefined, aliases?: CallAliases) => Promise<GrantScope>;

export interface StepContext {
  runCall: RunToolCall;
  ask: AskToolCall;
  /** Queues an event in the run's commit order. */
  emit: <T extends StreamEventType>(type: T, data: EventData<T>) => void;
  /** Commits what is queued; call it before waiting on something slow (a model). */
  flush: () => Promise<void>;
  index: number;
  total: number;
  /** The step goes on at this call: the ones before it ran before the run stopped for an approval. */
  firstCall: number;
}

/** How one decision is carried out: its scripted calls, or a model choosing calls. */
export interface StepRunner {
  run(decision: StrategyDecision, context: StepContext): Promise<void>;
}

/** A scripted plan's way: the decision's own tool calls, in order. */
export const scriptedStepRunner: StepRunner = {
  async run(decision, { runCall, firstCall }) {
    for (const [callIndex, call] of decision.toolCalls.entries()) {
      if (callIndex >= firstCall) await runCall(call, callIndex);
    }
  },
};

export interface RuntimeExecuteOptions {
  streamCallback?: StreamCallback;
  profile?: AutomationProfile;
  /** Called whenever a decision's status changes, so it can be persisted. */
  onDecisionStatus?: (decision: StrategyDecision, status: DecisionStatus) => Promise<void>;
  /** Awaited before each decision runs; step mode and breakpoints wait here, never mid-tool-call. */
  beforeDecision?: (decision: StrategyDecision, index: number, total: number) => Promise<void>;
  /** Awaited as each decision starts, once the writes before it are committed: a checkpoint is taken here. */
  onStepStart?: (decision: StrategyDecision) => Promise<void>;
  /** Default: the scripted runner. */
  stepRunner?: StepRunner;
  /** Holds the calls that wait for the operator's approval. */
  gate?: ApprovalGate;
  /** The project's invariants, held against every call. */
  rules?: InvariantRules;
  /** Continue this step at this call: the calls before it ran before the run stopped for an approval. */
  resumeAt?: ResumeAt;
  /**
   * The run's tally across its automatic retries (each retry is a new pass): the calls made and
   * when the first pass started, so the end of the run counts every attempt, not the last pass's.
   */
  tally?: { toolCalls: number; startedAt: number };
}

export interface RuntimeExecuteActorOptions {
  toolRunner: ToolRunner | null | undefined;
  executionContext: PlanExecutionContext | null | undefined;
  events: EventPublisher;
  /** How the run's writes are grouped into commits (see CommitGroup). */
  commit?: CommitGroupOptions;
}

/** Executes strategy decisions through the ToolRunner and captures every change into the context's store. */
export class RuntimeExecuteActor {
  readonly toolRunner: ToolRunner;
  readonly executionContext: PlanExecutionContext;
  private readonly events: EventPublisher;
  private readonly commitOptions: CommitGroupOptions | undefined;

  constructor(options: RuntimeExecuteActorOptions) {
    if (!options.toolRunner) throw new ValidationError('toolRunner', 'is required');
    if (!options.executionContext) throw new ValidationError('executionContext', 'is required');
    this.toolRunner = options.toolRunner;
    this.executionContext = options.executionContext;
    if (!options.events) throw new ValidationError('events', 'is required');
    this.events = options.events;
    this.commitOptions = options.commit;
  }

  async execute(decisions: readonly StrategyDecision[], options: RuntimeExecuteOptions | StreamCallback = {}): Promise<RuntimeExecuteResult> {
    const opts = typeof options === 'function' ? { streamCallback: options } : options;
    const context = this.executionContext;
    const emit = this.events.emitterFor(context.planId, opts.streamCallback);
    const started = performance.now();
    const changesetId = context.activeChangesetId ?? (await context.startChangeset());
    const sandboxRefs = context.sandboxRoot ? [context.sandboxRoot] : [];
    const todo = decisions.filter((d) => d.status !== 'done' && d.status !== 'skipped');
    const stepRunner = opts.stepRunner ?? scriptedStepRunner;

    // Every write of the run (events, decision status, each call's entries and invocation) goes
    // through one queue, committed every few milliseconds and before the run waits for the
    // operator, ends or fails; subscribers hear of the writes only after their commit.
    const group = new CommitGroup((writes) => this.events.deferDelivery(() => context.atomically(writes)), this.commitOptions);
    const later = <T extends StreamEventType>(type: T, data: EventData<T>) =>
      group.add(async () => {
        await emit(type, data);
      });
    const yieldNow = eventLoopYielder();
    const setStatus = (decision: StrategyDecision, status: DecisionStatus) => {
      decision.status = status;
      decision.updatedAt = new Date().toISOString();
      const saved = { ...decision };
      group.add(async () => {
        await opts.onDecisionStatus?.(saved, status);
        await emit('decision_status', { decisionId: decision.id, status });
      });
    };

    try {
      later('runtime_execute_started', { changesetId, decisionCount: todo.length, sandboxRoot: context.sandboxRoot });
      const tally = opts.tally ?? { toolCalls: 0, startedAt: started };
      const processed: string[] = [];
      // Steps are numbered in the whole plan, so a resumed run goes on at "step 2 of 3", not "step 1 of 2".
      const total = decisions.length;
      for (const decision of todo) {
        const index = decisions.indexOf(decision);
        await group.flush();
        await opts.beforeDecision?.(decision, index, total);
        await opts.onStepStart?.(decision);
        later('runtime_execute_step', { decisionId: decision.id, index: index + 1, total, description: decision.description });
        setStatus(decision, 'running');
        // The step's start is committed before its first call can change the sandbox: a retry after a
        // lost connection knows the step started, and restores its checkpoint first.
        await group.flush();
        const firstCall = opts.resumeAt?.decisionId === decision.id ? opts.resumeAt.callIndex : 0;
        const ask: AskToolCall = async (call, callIndex, effect, aliases = []) => {
          if (!opts.gate?.applies(call, undefined, aliases)) return null;
          await group.flush();
          return opts.gate.check(decision, call, callIndex, effect, undefined, this.toolRunner.registry.get(call.tool), aliases);
        };
        const runCall: RunToolCall = async (call, callIndex, callOptions) => {
          const tool = this.toolRunner.registry.get(call.tool);
          if (!callOptions?.approved && opts.gate?.applies(call, tool?.mcp)) {
            // Everything before the call is committed before the run may stop for the operator.
            await group.flush();
            await opts.gate.check(decision, call, callIndex, tool?.effect, tool?.mcp, tool);
          }
          later('tool_call_started', { decisionId: decision.id, tool: call.tool, args: call.args });
          let lastProgress = -Infinity;
          tally.toolCalls += 1;
          await yieldNow();
          // What the call's server asks the operator meanwhile (MCP elicitation).
          const questions = opts.gate?.elicitation.forCall(decision, callIndex, call.tool);
          // A server's call that stopped for its question runs again under the same id.
          const invocationId = tool?.mcp ? await questions?.callId() : undefined;
          const ran = this.toolRunner.execute(call, {
            invocationId,
            planId: context.planId,
            decisionId: decision.id,
            sandboxRoot: context.sandboxRoot,
            profile: opts.profile,
            rules: opts.rules,
            recordChange: async (change, invocationId) => {
              // The event carries what the changes list shows, so no view asks the host again.
              const entry = await context.recordChange(toChangeEntry(change, { decisionId: decision.id, invocationId }));
              await emit('change_recorded', { entry });
            },
            reportProgress: (progress, invocationId) => {
              // A bar needs a few reports a second at most; the last one (progress = total) always shows.
              const now = performance.now();
              if (now - lastProgress < PROGRESS_INTERVAL_MS && progress.progress !== progress.total) return;
              lastProgress = now;
              later('tool_progress', { decisionId: decision.id, invocationId, tool: call.tool, ...progress });
            },
            log: (entry) => later('tool_log', { decisionId: decision.id, ...entry }),
            elicit: questions ? (question, asked) => questions.ask(question, asked) : undefined,
            // The call's entries, invocation and events are one unit of the group's next commit.
            atomically: async (writes) => group.add(writes),
            onSettled: async (invocation) => {
              await emit('tool_call_finished', {
                decisionId: decision.id,
                invocationId: invocation.id,
                tool: call.tool,
                ok: invocation.ok,
                durationMs: invocation.durationMs,
                startedAt: invocation.startedAt,
                ...(invocation.ok ? {} : { error: invocation.error }),
                ...(invocation.confinement ? { confinement: invocation.confinement } : {}),
                ...(tool?.mcp ? { mcpServer: tool.mcp.server } : {}),
              });
            },
          });
          if (!questions) return ran;
          try {
            const invocation = await ran;
            await questions.settle();
            return invocation;
          } catch (error) {
            if (!(error instanceof ApprovalPending)) await questions.settle();
            throw error;
          }
        };
        try {
          await stepRunner.run(decision, { runCall, ask, emit: later, flush: () => group.flush(), index: index + 1, total, firstCall });
        } catch (error) {
          // A call waiting for approval leaves its step pending: answering it continues the step.
          setStatus(decision, error instanceof ApprovalPending ? 'pending' : 'failed');
          throw error;
        }
        setStatus(decision, 'done');
        processed.push(decision.id);
      }
      const result = createRuntimeExecuteResult({
        changesetId,
        toolCallCount: tally.toolCalls,
        sandboxRefs,
        decisionIdsProcessed: processed,
        executionDurationMs: performance.now() - tally.startedAt,
      });
      later('runtime_execute_complete', { ...result });
      await group.flush();
      return result;
    } catch (error) {
      // What was queued, the failed status included, is committed before the failure is reported
      // (flush also waits for a commit already under way).
      try {
        await group.flush();
      } catch {
        // The run fails with its own error; a commit that failed too adds nothing an operator can act on.
      }
      throw error;
    }
  }
}
