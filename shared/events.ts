import { z } from 'zod';
import { ApplyResultSchema, ChangeEntryMetaSchema } from './changes';
import { ApprovalKindSchema } from './approvals';
import { ConfinementSchema } from './tool-calls';
import { DecisionStatusSchema, PhaseSchema, ProcessingStateSchema, RecoveryActionSchema, RuntimeExecuteResultSchema } from './domain';
import { ErrorRecordSchema } from './error-records';
import { CheckResultSchema, CheckSourceSchema, PlanChecksSummarySchema } from './checks';
import { CheckpointCreatedSchema, PlanForkedSchema, PlanRewoundSchema } from './checkpoints';
import { once } from './once';
import { SubtaskSchema } from './subtasks';

/** The nine core event types, in the order a successful run emits them per mode. */
export const SEED_EVENT_TYPES = [
  'strategize_started',
  'strategize_decisions',
  'strategize_complete',
  'execute_started',
  'execute_step',
  'execute_complete',
  'runtime_execute_started',
  'runtime_execute_step',
  'runtime_execute_complete',
] as const;

/**
 * The `data` of each event type: one schema per type, which the engine's emitters are typed by,
 * the transports carry and the renderer reads. A new event type is a new entry here (and in
 * ENGINE_EVENT_TYPES); everything else follows from the union below. Built on first use: most
 * commands check no event, and these are a sixth of the schemas a start would build.
 */
function buildEventData() {
  const id = z.string().min(1);
  const count = z.number().int().nonnegative();
  const runStarted = z.object({ changesetId: id, decisionCount: count, sandboxRoot: z.string().nullable() });
  const modelPhase = z.enum(['strategize', 'execute']);
  const step = z.object({ decisionId: id, index: z.number().int().positive(), total: count, description: z.string() });
  return {
    strategize_started: z.object({}),
    strategize_decisions: z.object({ decisionRootId: id, decisionCount: count, invariantRecords: z.array(z.unknown()) }),
    strategize_complete: z.object({ decisionRootId: id }),
    execute_started: runStarted,
    execute_step: step,
    execute_complete: z.object({ changesetId: id, toolCallsCount: count, entryCount: count }),
    runtime_execute_started: runStarted,
    runtime_execute_step: step,
    runtime_execute_complete: RuntimeExecuteResultSchema,

    plan_created: z.object({ name: z.string(), phase: PhaseSchema, processingState: ProcessingStateSchema }),
    /** `category`: an errored plan's error category, so a client tells "Interrupted" from "Failed" without asking. */
    state_changed: z.object({
      from: ProcessingStateSchema,
      to: ProcessingStateSchema,
      phase: PhaseSchema,
      fromPhase: PhaseSchema.optional(),
      category: z.string().optional(),
      /** Paused for the operator's answer: the plan is Waiting for approval. */
      waitingFor: z.enum(['approval']).optional(),
    }),
    decision_status: z.object({ decisionId: id, status: DecisionStatusSchema }),
    tool_call_started: z.object({ decisionId: id, tool: z.string(), args: z.record(z.string(), z.unknown()) }),
    tool_call_finished: z.object({
      decisionId: id,
      invocationId: id,
      tool: z.string(),
      ok: z.boolean(),
      durationMs: z.number().nonnegative(),
      error: z.object({ name: z.string(), message: z.string(), category: z.string().optional() }).nullable().optional(),
      /** With the args of its tool_call_started, all an open decision lists for the call (events stored before these fields lack them). */
      startedAt: z.string().optional(),
      confinement: ConfinementSchema.optional(),
      /** The MCP server whose tool this was (its trace span says so); absent for our own tools. */
      mcpServer: z.string().optional(),
    }),
    /** The recorded entry as the changes list shows it: a view appends it without asking the host. */
    change_recorded: z.object({ entry: ChangeEntryMetaSchema }),
    error_recorded: ErrorRecordSchema.unwrap().omit({ stack: true }),
    retry_scheduled: z.object({
      phase: PhaseSchema,
      decisionId: z.string().nullable(),
      attempt: z.number().int().positive(),
      delayMs: z.number().nonnegative(),
      error: z.string(),
      category: z.string().optional(),
      maxRetries: z.number().int().nonnegative().optional(),
    }),
    paused: z.object({
      decisionId: id,
      index: z.number().int().positive(),
      total: count,
      reason: z.enum(['step', 'breakpoint', 'pause']),
      description: z.string(),
    }),
    /** `discarded`: files left unapplied when the operator discarded the rest of a partly applied changeset. */
    apply_complete: ApplyResultSchema.unwrap().extend({ ok: z.boolean(), discarded: z.number().int().nonnegative().optional() }),
    /** An approval waits for the operator: a tool call (`kind: 'tool'`, the default), an agent's proposed tree, a budget or a server's question (APPROVAL_KINDS). */
    approval_requested: z.object({
      approvalId: id,
      kind: ApprovalKindSchema.optional(),
      decisionId: z.string().nullable(),
      tool: z.string().nullable(),
      args: z.record(z.string(), z.unknown()).optional(),
      description: z.string(),
    }),
    approval_resolved: z.object({
      approvalId: id,
      decisionId: z.string().nullable(),
      tool: z.string().nullable(),
      approved: z.boolean(),
      scope: z.enum(['once', 'all']).nullable(),
      answeredBy: z.string(),
      /** The machine the answer was given on; absent in events stored before it was kept. */
      host: z.string().optional(),
      reason: z.string().nullable(),
    }),
    recovery_applied: z.object({ action: RecoveryActionSchema, decisionId: z.string().nullable(), description: z.string(), by: z.string(), host: z.string().optional() }),
    /** A running tool call's progress, as an MCP server reports it (`notifications/progress`); reports closer than a quarter second apart are dropped. */
    tool_progress: z.object({
      decisionId: z.string().nullable(),
      invocationId: id,
      tool: z.string(),
      progress: z.number(),
      total: z.number().optional(),
      message: z.string().optional(),
    }),
    /** A log message an MCP server sent during a call (`notifications/message`). */
    tool_log: z.object({ decisionId: z.string().nullable(), server: z.string(), level: z.string(), logger: z.string().optional(), text: z.string() }),
    /** The model's text as it streams, deltas batched. */
    model_output: z.object({ decisionId: z.string().nullable(), phase: modelPhase, text: z.string() }),
    /** A coding agent's sub-tasks for the step as it now sees them (its `plan` update): the whole list, replacing the last. */
    step_subtasks: z.object({ decisionId: id, entries: z.array(SubtaskSchema) }),
    /** Tokens after each model call: the call's, the step's and the plan's. */
    model_usage: z.object({
      decisionId: z.string().nullable(),
      phase: modelPhase,
      inputTokens: count,
      /** Of the call's input tokens, those read from the provider's prompt cache. */
      cachedInputTokens: count.optional(),
      outputTokens: count,
      stepInputTokens: count,
      stepOutputTokens: count,
      planInputTokens: count,
      planOutputTokens: count,
      /** US dollars a coding agent over ACP reported for the figures in this event (its own reckoning). */
      costUsd: z.number().nonnegative().optional(),
      /** The plan's reported cost after this event, so a client that sees an event twice does not count it twice. */
      planCostUsd: z.number().nonnegative().optional(),
      /** The call itself, for its trace span (absent in events stored before they were kept, and for a coding agent's turns). */
      provider: z.string().optional(),
      model: z.string().optional(),
      responseModel: z.string().optional(),
      finishReason: z.string().optional(),
      startedAt: z.string().optional(),
      /** A call that failed (no tokens counted): its category, the trace's `error.type`, and why. */
      error: z.object({ type: z.string(), message: z.string() }).optional(),
    }),
    /** A step's conversation grew past its context: older tool results were cut to one line, then the oldest turns folded into a summary. */
    context_folded: z.object({
      decisionId: z.string().nullable(),
      phase: modelPhase,
      contextTokens: count,
      /** Estimated tokens of the request before and after. */
      beforeTokens: count,
      afterTokens: count,
      resultsCut: count,
      turnsFolded: count,
    }),
    /** A check starts in the sandbox: check `index` of the pass's `total` (README.md, "Verify"). */
    check_started: z.object({
      runId: id,
      resultId: id,
      name: z.string(),
      run: z.string(),
      source: CheckSourceSchema,
      decisionId: z.string().nullable(),
      index: z.number().int().positive(),
      total: count,
    }),
    /** A check's output as it is written, stdout and stderr interleaved, chunks batched. */
    check_output: z.object({ runId: id, resultId: id, name: z.string(), decisionId: z.string().nullable(), text: z.string() }),
    /** A check ended (or was refused, or ran past its time limit): its whole result, the output's tail included. */
    check_finished: CheckResultSchema,
    /** A verify pass ended: the plan's summary as it now stands. */
    checks_complete: z.object({ runId: id, summary: PlanChecksSummarySchema }),
    /** The sandbox changed after the checks ran: their verdicts are stale until they run again. */
    checks_stale: z.object({ reason: z.string(), summary: PlanChecksSummarySchema }),
    /** A step is about to start and what the plan held is recorded: it can be rewound to. */
    checkpoint_created: CheckpointCreatedSchema,
    /** The sandbox and the changeset are back to a checkpoint; the steps from there are pending again. */
    plan_rewound: PlanRewoundSchema,
    /** A plan was forked at a step (in the fork's events and in its origin's): the steps before it are shared, not run again. */
    plan_forked: PlanForkedSchema,
    /**
     * A run found the plan's sandbox gone, or made on another machine, and remade it here: the base
     * (a git project at its base commit, the local project, or nothing), then the last checkpoint's
     * files (`checkpointStep`; null: none), then the changes recorded after it. `drift`: the paths
     * where the base is not what the sandbox first started from (none from a checkpoint, which holds
     * the first sandbox's). `git`: whether the sandbox has the base's `.git` (never the first sandbox's own).
     */
    sandbox_remade: z.object({
      sandboxRoot: z.string(),
      base: z.enum(['git', 'project', 'empty']),
      baseCommit: z.string().nullable(),
      files: count,
      drift: z.array(z.string()),
      // Absent in events recorded before checkpoints were laid.
      checkpointStep: z.number().int().positive().nullable().optional(),
      git: z.enum(['base', 'none']).optional(),
      /** The first sandbox had a `.git` of its own (made by the plan): not carried. */
      ownGit: z.boolean().optional(),
    }),
  } as const;
}
type EventDataSchemas = ReturnType<typeof buildEventData>;
const eventData = once(buildEventData);

export type StreamEventType = keyof EventDataSchemas;

/** Events beyond the core nine: lifecycle, tool calls, changes, errors, the model, approvals and recovery. */
export const ENGINE_EVENT_TYPES = [
  'plan_created',
  'state_changed',
  'decision_status',
  'tool_call_started',
  'tool_call_finished',
  'change_recorded',
  'error_recorded',
  'retry_scheduled',
  'paused',
  'apply_complete',
  /** A running call's progress and its MCP server's log messages. */
  'tool_progress',
  'tool_log',
  /** The model's text as it streams: `{ decisionId, phase, text }`, deltas batched. */
  'model_output',
  /** A coding agent's sub-tasks for the step: `{ decisionId, entries }`, the whole list each time. */
  'step_subtasks',
  /** Tokens after each model call: the call's, the step's and the plan's. */
  'model_usage',
  /** A step's conversation cut and folded to stay within its context. */
  'context_folded',
  'approval_requested',
  'approval_resolved',
  'recovery_applied',
  'check_started',
  'check_output',
  'check_finished',
  'checks_complete',
  'checks_stale',
  'checkpoint_created',
  'plan_rewound',
  'plan_forked',
  'sandbox_remade',
] as const satisfies readonly StreamEventType[];

export const STREAM_EVENT_TYPES = [...SEED_EVENT_TYPES, ...ENGINE_EVENT_TYPES] as const;
/** Every type that has data is listed: one left out of both lists does not compile, and the error names it. */
type Unlisted = Exclude<StreamEventType, (typeof STREAM_EVENT_TYPES)[number]>;
const _everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
export const StreamEventTypeSchema = z.enum(STREAM_EVENT_TYPES);

/** The `data` of events of type T, as its emitter builds it. */
export type EventData<T extends StreamEventType> = z.input<EventDataSchemas[T]>;

const envelope = {
  planId: z.string().min(1),
  /** Monotonic per plan, starting at 1. */
  seq: z.number().int().positive(),
  ts: z.string(),
};

type EventSchemas = { [T in StreamEventType]: z.ZodObject<typeof envelope & { type: z.ZodLiteral<T>; data: EventDataSchemas[T] }> };

/** Each event type's whole schema, envelope included: check an event against its own type only. */
const streamEventSchemas = once(
  () => Object.fromEntries(STREAM_EVENT_TYPES.map((type) => [type, z.object({ ...envelope, type: z.literal(type), data: eventData()[type] })])) as unknown as EventSchemas,
);

const streamEventUnion = once(() =>
  z.discriminatedUnion(
    'type',
    STREAM_EVENT_TYPES.map((type) => streamEventSchemas()[type]) as unknown as [EventSchemas[StreamEventType], ...EventSchemas[StreamEventType][]],
  ),
);
export const StreamEventSchema = z.lazy(streamEventUnion);

/** An event of one type; `StreamEvent` is their union, discriminated by `type`. */
export type StreamEventOf<T extends StreamEventType> = { planId: string; seq: number; ts: string; type: T; data: z.output<EventDataSchemas[T]> };
export type StreamEvent = { [T in StreamEventType]: StreamEventOf<T> }[StreamEventType];

export type StreamCallback = (event: StreamEvent) => void;

/**
 * Checks one event: the envelope, then `data` against its type's schema only (a union parse would
 * try types until one fits). Returns the event, or null with nothing thrown.
 */
export function parseStreamEvent(value: unknown): StreamEvent | null {
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  const schemas = streamEventSchemas();
  if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) return null;
  const parsed = schemas[type as StreamEventType].safeParse(value);
  return parsed.success ? (parsed.data as StreamEvent) : null;
}
