import { z } from 'zod';
import { ApplyResultSchema, DiffHunkSchema, ChangeEntryMetaSchema, ChangeOperationSchema } from './changes';
import { ApprovalSchema } from './approvals';
import { PlanSchema, ProcessingStateSchema, StrategyDecisionSchema } from './domain';
import { ErrorRecordSchema } from './error-records';
import { ProfileNameSchema } from './profiles';
import { ToolInvocationSchema } from './tool-calls';
import { ErrorCodeSchema } from './errors';
import { ActionStateSchema, type ActionId, NextStepSchema } from './action-ids';
import { ACTION_IDS, ACTIONS, type ActionChannelOf, type ChannelAction } from './actions';
import { PlanModelViewSchema, SettingsPatchSchema, SettingsViewSchema } from './agent';
import { STREAM_EVENT_TYPES, StreamEventSchema, StreamEventTypeSchema } from './events';
import { PlanChecksViewSchema } from './checks';
import { McpServerAddSchema, McpServersViewSchema } from './mcp';
import { CheckpointSummarySchema, ForkResultSchema, RewindPreviewSchema, RewindResultSchema } from './checkpoints';
import { PlanCompareSchema } from './plan-compare';
import { AcpAgentAddSchema, AcpAgentsViewSchema } from './acp';
import { TeamStatusSchema } from './team';

/**
 * The one contract between the renderer and the host, bound to Electron IPC and to the
 * WebSocket of `agents serve`. Every type on either side is inferred from here.
 */

export type { ChangeEntryMeta } from './changes';

const planId = z.object({ planId: z.string().min(1).max(64) });

export const PlanListItemSchema = z.lazy(() =>
  PlanSchema.unwrap().extend({
    /** Executed steps out of all steps, for a progress bar. */
    progress: z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() }),
    /** A failure, a pending approval or an interrupted run: the operator must act before it goes on. */
    needsAttention: z.boolean(),
    /** Executed, with changes waiting to be applied (or discarded). */
    awaitingApply: z.boolean(),
  }),
);
export type PlanListItem = z.infer<typeof PlanListItemSchema>;


/** A suggested next step: an action with its arguments, and why (the CLI shows it as a command, the console as a button). */
export const RecoveryHintSchema = NextStepSchema;
export type RecoveryHint = z.infer<typeof RecoveryHintSchema>;


export const REVIEW_STATES = ['remaining', 'partial', 'applied'] as const;

/** One file of a changeset under review: the net change of every step that touched the path. */
export const ReviewFileSchema = z.object({
  path: z.string(),
  oldPath: z.string().nullable(),
  operation: ChangeOperationSchema,
  binary: z.boolean(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  entryIds: z.array(z.string()),
  decisionIds: z.array(z.string()),
  steps: z.array(z.object({ id: z.string(), description: z.string() })),
  hunks: z.array(
    z.object({
      index: z.number().int().positive(),
      header: z.string(),
      insertions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      /** What the hunk changes, whatever its number: how a declined hunk is found again. */
      key: z.string(),
      applied: z.boolean(),
    }),
  ),
  units: z.number().int().positive(),
  appliedHunks: z.array(z.number().int().positive()),
  state: z.enum(REVIEW_STATES),
  /** The operator changed the file by hand in the sandbox: the console and `agents plan diff` say "Edited by you". */
  editedByOperator: z.boolean(),
  /** A mode git counts changed (`chmod +x`), as git names the modes: `100644` to `100755`. */
  modeChange: z.object({ from: z.string(), to: z.string() }).optional(),
});
export type ReviewFile = z.infer<typeof ReviewFileSchema>;

const planResponse = z.object({ plan: PlanSchema });
/** The trace of the plan's current or last run (README.md, "Traces"), and the trace viewer's address for it when `traceUrl` is set. */
export const PlanTraceViewSchema = z.object({ traceId: z.string().regex(/^[0-9a-f]{32}$/), url: z.string().nullable() });
export type PlanTraceView = z.infer<typeof PlanTraceViewSchema>;

/**
 * An action's channel takes the plan and the action's own arguments, as its entry in ACTIONS
 * declares them (shared/actions.ts); `host` narrows what a client may send where the host takes
 * less than the command line (a built-in profile only).
 */
function actionRequest<A extends ActionId, Host extends z.ZodRawShape = Record<never, never>>(id: A, host?: Host) {
  type Shape = (typeof ACTIONS)[A]['args']['shape'];
  const shape = { ...planId.shape, ...ACTIONS[id].args.shape, ...host } as typeof planId.shape & Omit<Shape, keyof Host> & Host;
  return z.object(shape).strict();
}

/** How many of a decision's calls ran and how many failed: what the tree's row shows. */
export const ToolTallySchema = z.object({ decisionId: z.string(), ran: z.number().int().nonnegative(), failed: z.number().int().nonnegative() });
export type ToolTally = z.infer<typeof ToolTallySchema>;

/** The channels written out below: their answer is not the plan as the action left it, or the host takes less than the entry. */
const WRITTEN_OUT = ['apply', 'set_profile', 'rewind', 'fork', 'compare', 'show_errors'] as const satisfies readonly ChannelAction[];
type PlanAction = Exclude<ChannelAction, (typeof WRITTEN_OUT)[number]>;
type PlanActionChannels = { [A in PlanAction as ActionChannelOf<A>]: { request: ReturnType<typeof actionRequest<A>>; response: typeof planResponse } };

/** Every other action's channel, from its entry alone: the plan and the action's arguments in, the plan out. */
function planActionChannels(): PlanActionChannels {
  const written: readonly ActionId[] = WRITTEN_OUT;
  const plain = ACTION_IDS.filter((id) => ACTIONS[id].channel !== undefined && !written.includes(id));
  return Object.fromEntries(plain.map((id) => [ACTIONS[id].channel, { request: actionRequest(id), response: planResponse }])) as PlanActionChannels;
}

export const contract = {
  ...planActionChannels(),
  'app.info': {
    request: z.object({}).strict(),
    response: z.object({
      version: z.string(),
      dataDir: z.string(),
      tools: z.array(z.object({ name: z.string(), description: z.string() })),
      /** True in the desktop app, where plans.createFromDialog opens the system's file dialog. */
      nativeFileDialog: z.boolean(),
    }),
  },
  'plans.list': {
    request: z.object({ state: ProcessingStateSchema.optional(), search: z.string().max(200).optional() }).strict(),
    response: z.object({ plans: z.array(PlanListItemSchema) }),
  },
  'plans.get': {
    request: planId.strict(),
    /** With the agent plan's model and whether the host can use it (null for a scripted plan), so the console can say why it cannot approve. */
    /** `actions`: every operator action, whether the plan allows it now and, if not, why (shared/actions.ts). */
    response: planResponse.extend({ model: PlanModelViewSchema.nullable().optional(), actions: z.array(ActionStateSchema).optional(), trace: PlanTraceViewSchema.nullable().optional() }),
  },
  'plans.create': {
    // The plan's content only, never a file path on the host: a client must not learn which host
    // files exist, nor read one through an error message. (The desktop app's dialog has its own call.)
    request: z
      .object({
        /** A plan file's text (the browser's file picker). */
        content: z.string().min(1).max(1_000_000),
        fileName: z.string().max(255).optional(),
        /** A project folder; it must lie inside the host's project roots. */
        project: z.string().max(4096).optional(),
        profile: z.string().max(64).optional(),
      })
      .strict(),
    response: planResponse,
  },
  /**
   * Where a project folder resolves on the host, as plans.create would take it, or the one-line
   * problem naming the path tried: `project` as the operator types it; without it, the project
   * that the plan text `content` names (the console fills its Project folder field from it).
   */
  'plans.checkProject': {
    request: z.object({ project: z.string().min(1).max(4096).optional(), content: z.string().min(1).max(1_000_000).optional() }).strict(),
    response: z.object({
      /** As typed or as the plan names it; null when the plan names none. */
      project: z.string().nullable(),
      /** The absolute folder it resolves to (or, with a problem, the one tried). */
      path: z.string().nullable(),
      problem: z.string().nullable(),
      /** Where a relative folder is looked for, in order: beside the plan file where the host found it, else its working folder; then the project roots. */
      relativeTo: z.array(z.string()),
    }),
  },
  /**
   * The decision tree in display order (depth first, siblings by order), optionally a page of it:
   * a console can draw the top of a large tree from the first page while the rest loads.
   */
  /** The desktop app's file dialog picks a plan file on the host; null when the operator cancels. */
  'plans.createFromDialog': { request: z.object({}).strict(), response: z.object({ plan: PlanSchema.nullable() }) },
  'plans.decisions': {
    request: planId.extend({ offset: z.number().int().nonnegative().default(0), limit: z.number().int().positive().max(100_000).optional() }).strict(),
    response: z.object({ decisions: z.array(StrategyDecisionSchema), total: z.number().int().nonnegative() }),
  },
  'plans.invocations': { request: planId.strict(), response: z.object({ invocations: z.array(ToolInvocationSchema) }) },
  /** One decision's calls in recording order: a console reads them when the decision is opened, not the plan's whole list. */
  'plans.invocationsForDecision': {
    request: planId.extend({ decisionId: z.string().min(1).max(64) }).strict(),
    response: z.object({ invocations: z.array(ToolInvocationSchema) }),
  },
  /**
   * Per decision, how many calls ran and failed, as of event `throughSeq`: tool_call_finished
   * events after it move the tallies on.
   */
  'plans.toolTallies': {
    request: planId.strict(),
    response: z.object({ tallies: z.array(ToolTallySchema), throughSeq: z.number().int().nonnegative() }),
  },
  /** Events after `afterSeq`, oldest first; with `newest`, the last `limit` of them (a log opens at its end). */
  'plans.events': {
    request: planId
      .extend({ afterSeq: z.number().int().nonnegative().default(0), limit: z.number().int().positive().max(5000).default(1000), newest: z.boolean().default(false) })
      .strict(),
    response: z.object({ events: z.array(StreamEventSchema), lastSeq: z.number().int().nonnegative() }),
  },
  'plans.changes': {
    request: planId.extend({ offset: z.number().int().nonnegative().default(0), limit: z.number().int().positive().max(2000).default(500) }).strict(),
    response: z.object({
      changesetId: z.string().nullable(),
      total: z.number().int().nonnegative(),
      entries: z.array(ChangeEntryMetaSchema),
    }),
  },
  'plans.change': {
    request: planId.extend({ entryId: z.string().min(1).max(64) }).strict(),
    /** What the diff view draws: the entry and its hunks as rows (null for a binary entry); no file texts. */
    response: z.object({ entry: ChangeEntryMetaSchema, hunks: z.array(DiffHunkSchema).nullable() }),
  },
  /** The changeset as a review: one row per path, netted across steps, with what is applied and what remains. */
  'plans.review': {
    request: planId.strict(),
    response: z.object({ changesetId: z.string().nullable(), files: z.array(ReviewFileSchema) }),
  },
  /** One reviewed file with the hunks of its net change as rows (null for a binary file); hunk n is file.hunks[n-1]. */
  'plans.reviewDiff': {
    request: planId.extend({ path: z.string().min(1).max(4096) }).strict(),
    response: z.object({ file: ReviewFileSchema.omit({ steps: true }), hunks: z.array(DiffHunkSchema).nullable() }),
  },
  'plans.errors': {
    request: actionRequest('show_errors'),
    response: z.object({
      planId: z.string(),
      errors: z.array(ErrorRecordSchema),
      /** The tree's error_recovery decisions: what was done about each failure. */
      recoveryDecisions: z.array(StrategyDecisionSchema),
      recoveryHints: z.array(RecoveryHintSchema),
    }),
  },
  /** The plan's approvals, oldest first; `pending` is the call the plan waits for. */
  'plans.approvals': {
    request: planId.strict(),
    response: z.object({ planId: z.string(), pending: ApprovalSchema.nullable(), approvals: z.array(ApprovalSchema) }),
  },
  /** Changes the plan's automation profile to a built-in one; the plan is queued to go on. */
  'plans.setProfile': { request: actionRequest('set_profile', { profile: ProfileNameSchema }), response: planResponse },
  'plans.breakpoint': {
    request: planId.extend({ decisionId: z.string().min(1).max(64), enabled: z.boolean() }).strict(),
    response: z.object({ breakpoints: z.array(z.string()) }),
  },
  'plans.apply': { request: actionRequest('apply'), response: ApplyResultSchema },
  /** The plan's checks, their latest results and each criterion's verdict with its evidence. */
  'plans.checks': { request: planId.strict(), response: PlanChecksViewSchema },
  /** Hunks of one file declined in the review (numbered as `agents plan diff` shows them), with why: kept with the plan, told to the model. */
  'plans.rejectHunks': {
    request: planId.extend({ path: z.string().min(1).max(4096), hunks: z.array(z.number().int().positive()).min(1).max(10_000), reason: z.string().max(1000).optional() }).strict(),
    response: planResponse,
  },
  /** Hunks ticked again: no longer declined. */
  'plans.restoreHunks': { request: planId.extend({ path: z.string().min(1).max(4096), hunks: z.array(z.number().int().positive()).min(1).max(10_000) }).strict(), response: planResponse },
  /** A file of the plan's sandbox as it is now (text, or binary without its content), changed by the plan or not. */
  'plans.readFile': {
    request: planId.extend({ path: z.string().min(1).max(4096) }).strict(),
    response: z.object({ path: z.string(), content: z.string().nullable(), binary: z.boolean() }),
  },
  /**
   * Writes a text file into the plan's sandbox (not while it is processing) and records it at once
   * as the operator's change, announced by `change_recorded`; `entry` is null when nothing changed.
   */
  'plans.saveFile': {
    request: planId.extend({ path: z.string().min(1).max(4096), content: z.string().max(10 * 1024 * 1024) }).strict(),
    response: z.object({ entry: ChangeEntryMetaSchema.nullable() }),
  },
  /** The desktop app only: shows the plan's sandbox folder in the system's file manager. */
  'plans.openSandbox': { request: planId.strict(), response: z.object({}) },
  /** The plan's checkpoints, oldest first: one as each step started. */
  'plans.checkpoints': { request: planId.strict(), response: z.object({ checkpoints: z.array(CheckpointSummarySchema) }) },
  /** What a rewind to before step `toStep` would change (the files, the operator's edits among them), for the confirmation. */
  'plans.rewindPreview': { request: planId.extend({ toStep: z.number().int().positive() }).strict(), response: RewindPreviewSchema },
  /** Puts the sandbox and the changeset back to the checkpoint of step `toStep`; that step and the later ones are pending again. */
  'plans.rewind': { request: actionRequest('rewind'), response: planResponse.extend({ rewind: RewindResultSchema }) },
  /**
   * A new plan from the checkpoint of step `atStep`: the steps before it shared, then another
   * profile, model (an agent plan) or steps (`content`: a plan file's text whose definition of done
   * holds the steps from `atStep` on). `plan` is the new plan; it is not run.
   */
  'plans.fork': {
    // The host reads no file of the client's: the plan file comes as its text.
    request: actionRequest('fork', { profile: ProfileNameSchema.optional(), content: z.string().min(1).max(1_000_000).optional() }).omit({ file: true }),
    response: planResponse.extend({ fork: ForkResultSchema }),
  },
  /** Two plans over the same project side by side: the files each changed, how their results differ where both changed one, and what each run took. */
  'plans.compare': { request: actionRequest('compare'), response: PlanCompareSchema },
  /** Team mode: the queue's depth and the workers with the plans they run; null for a console over the embedded database. */
  'team.status': { request: z.object({}).strict(), response: TeamStatusSchema.nullable() },
  /** The model settings; the API key never comes back, only whether one is set. */
  'settings.get': { request: z.object({}).strict(), response: SettingsViewSchema },
  'settings.set': { request: SettingsPatchSchema, response: SettingsViewSchema },
  /** The MCP servers every agent plan may use, each in one line; secret values never come back. */
  'settings.mcp': { request: z.object({}).strict(), response: McpServersViewSchema },
  'settings.mcpAdd': { request: McpServerAddSchema, response: McpServersViewSchema },
  'settings.mcpRemove': { request: z.object({ name: z.string().min(1).max(40) }).strict(), response: McpServersViewSchema },
  /** The coding agents a plan may run over ACP, each started once to say whether it starts, its version and modes; environment values never come back. */
  'settings.acp': { request: z.object({}).strict(), response: AcpAgentsViewSchema },
  'settings.acpAdd': { request: AcpAgentAddSchema, response: AcpAgentsViewSchema },
  'settings.acpRemove': { request: z.object({ name: z.string().min(1).max(40) }).strict(), response: AcpAgentsViewSchema },
} as const;

export type Contract = typeof contract;
export type Channel = keyof Contract;
export const CHANNELS = Object.keys(contract) as Channel[];
export type RequestOf<C extends Channel> = z.input<Contract[C]['request']>;
export type ParsedRequestOf<C extends Channel> = z.output<Contract[C]['request']>;
export type ResponseOf<C extends Channel> = z.output<Contract[C]['response']>;

/** An error as it crosses the boundary: never a stack trace. */
export const BridgeErrorSchema = z.object({ code: ErrorCodeSchema, message: z.string(), field: z.string().optional() });
export type BridgeErrorPayload = z.infer<typeof BridgeErrorSchema>;

export type Envelope<T> = { ok: true; data: T } | { ok: false; error: BridgeErrorPayload };

/**
 * Which events a subscriber wants: one plan, or every plan (the plan list); with `types`, only
 * events of those types (a plan list needs a few types, not a running plan's thousands of events).
 */
export const SubscriptionSchema = z
  .object({
    planId: z.string().min(1).max(64).nullable(),
    afterSeq: z.number().int().nonnegative().default(0),
    types: z.array(StreamEventTypeSchema).min(1).max(STREAM_EVENT_TYPES.length).optional(),
  })
  .strict();
export type Subscription = z.input<typeof SubscriptionSchema>;

/** What the renderer sees, whichever transport carries it. */
export type Bridge = {
  [C in Channel]: (request: RequestOf<C>) => Promise<ResponseOf<C>>;
} & {
  subscribe(subscription: Subscription, listener: (event: z.infer<typeof StreamEventSchema>) => void): () => void;
  /** The desktop shell's request to open a plan (its notification was clicked); the desktop bridge only. */
  onOpenPlan?(listener: (planId: string) => void): () => void;
  /** A key the desktop shell's menu presses in the page; the desktop bridge only. */
  onMenuKey?(listener: (key: string) => void): () => void;
};

/**
 * A failed call, as both transports reject it: a plain object, because Electron's contextBridge
 * keeps only the message of an Error it carries. So the page reads a failure by its shape
 * (`failureOf`), never with `instanceof`, and cannot tell the transports apart.
 */
export interface BridgeFailure extends BridgeErrorPayload {
  name: 'BridgeError';
}

export function bridgeFailure(payload: BridgeErrorPayload): BridgeFailure {
  return { name: 'BridgeError', ...payload };
}

/** The code and message of a failed call, read by shape; null for anything else (a bug's Error, a string). */
export function failureOf(error: unknown): BridgeErrorPayload | null {
  const parsed = BridgeErrorSchema.safeParse(error);
  return parsed.success ? parsed.data : null;
}
