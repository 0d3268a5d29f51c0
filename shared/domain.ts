import { NextStepSchema } from './actions';
import { z } from 'zod';
import { once } from './once';
import { AgentFileSchema, AgentSpecSchema, PlanUsageSchema } from './agent';
import { allowedByName, McpCallInfoSchema, McpConfigSchema } from './mcp';
import { AcpAgentFileSchema, AcpPlanAgentSchema } from './acp';
import { CheckSchema, CheckSpecSchema, PlanChecksSummarySchema, PlanVerifySchema } from './checks';
import { ForkOriginSchema, ForkRefSchema, RewindRecordSchema } from './checkpoints';
import { RejectedHunkSchema } from './review-feedback';
import { GitSourceSchema, PlanGitSourceSchema } from './git-source';

export const PHASES = ['strategize', 'execute', 'apply'] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

export const PROCESSING_STATES = ['queued', 'processing', 'paused', 'complete', 'errored', 'cancelled'] as const;
export const ProcessingStateSchema = z.enum(PROCESSING_STATES);
export type ProcessingState = z.infer<typeof ProcessingStateSchema>;

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

// ---- tool calls ---------------------------------------------------------

// Strict, as a plan file's own fields are: a misspelt `args` or `tools` is refused, not dropped.
export const ToolCallSpecSchema = z.lazy(() =>
  z.strictObject({
    tool: nonEmpty,
    args: z.record(z.string(), z.unknown()).default({}),
  }),
);
export type ToolCallSpec = z.infer<typeof ToolCallSpecSchema>;

/**
 * How a shell.run call was confined: bubblewrap running the command as nobody (Linux), Seatbelt
 * (macOS), or not at all. `bwrap` (as the engine's own user) is what older versions recorded.
 */
export const CONFINEMENTS = ['bwrap-nobody', 'bwrap', 'sandbox-exec', 'none'] as const;
export const ConfinementSchema = z.enum(CONFINEMENTS);
export type Confinement = z.infer<typeof ConfinementSchema>;

/** A simple command of a shell.run call and the rule it met: `denyCommands "rm -rf *"`, `allowCommands`, or why it is unanalysable. */
export const CommandRuleSchema = z.lazy(() => z.object({ command: z.string(), rule: z.string() }));
export type CommandRule = z.infer<typeof CommandRuleSchema>;

export const ToolInvocationSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    decisionId: z.string().nullable(),
    tool: nonEmpty,
    args: z.record(z.string(), z.unknown()),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z
      .object({ name: z.string(), message: z.string(), category: z.string().optional(), commandRule: CommandRuleSchema.optional() })
      .nullable(),
    startedAt: timestamp,
    durationMs: z.number().nonnegative(),
    /** Set by tools that run commands (shell.run). */
    confinement: ConfinementSchema.optional(),
  }),
);
export type ToolInvocation = z.infer<typeof ToolInvocationSchema>;

// ---- decisions ----------------------------------------------------------

export const DECISION_TYPES = ['prompt_definition', 'strategy_choice', 'error_recovery', 'approval'] as const;
export const DecisionTypeSchema = z.enum(DECISION_TYPES);
export type DecisionType = z.infer<typeof DecisionTypeSchema>;

export const DECISION_STATUSES = ['pending', 'running', 'done', 'failed', 'skipped'] as const;
export const DecisionStatusSchema = z.enum(DECISION_STATUSES);
export type DecisionStatus = z.infer<typeof DecisionStatusSchema>;

export const StrategyDecisionSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    parentId: z.string().nullable(),
    type: DecisionTypeSchema,
    /** Position among its siblings, so a tree can be rebuilt in order. */
    order: z.number().int().nonnegative(),
    description: z.string(),
    rationale: z.string(),
    toolCalls: z.array(ToolCallSpecSchema),
    status: DecisionStatusSchema,
    /** The step's own check (a plan file's `check:`, or the command a model proposed with the step's acceptance). */
    check: CheckSchema.nullable().optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export type StrategyDecision = z.infer<typeof StrategyDecisionSchema>;

// ---- changesets ---------------------------------------------------------

export const CHANGE_OPERATIONS = ['create', 'modify', 'delete', 'rename'] as const;
export const ChangeOperationSchema = z.enum(CHANGE_OPERATIONS);
/** Who made a change: a tool call of the plan, or the operator by hand in the sandbox. Absent means `tool`. */
export const CHANGE_ORIGINS = ['tool', 'operator'] as const;
export const ChangeOriginSchema = z.enum(CHANGE_ORIGINS);
export type ChangeOrigin = z.infer<typeof ChangeOriginSchema>;
export type ChangeOperation = z.infer<typeof ChangeOperationSchema>;

export const ChangeEntrySchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    path: nonEmpty,
    /** Set for renames: where the file was before. */
    oldPath: z.string().nullable().default(null),
    operation: ChangeOperationSchema,
    beforeHash: z.string().nullable(),
    afterHash: z.string().nullable(),
    /** File contents; base64 when `binary` is true, so apply can restore the exact bytes. */
    beforeText: z.string().nullable(),
    afterText: z.string().nullable(),
    binary: z.boolean().default(false),
    decisionId: z.string().nullable().default(null),
    invocationId: z.string().nullable().default(null),
    origin: ChangeOriginSchema.optional(),
    /** A rewind made the entry history: listed, never applied. */
    rewound: z.boolean().optional(),
    createdAt: timestamp,
  }),
);
export type ChangeEntry = z.infer<typeof ChangeEntrySchema>;
export type ChangeEntryInput = z.input<typeof ChangeEntrySchema>;

/** An entry without its file texts, with the line counts computed when it was recorded. */
export const ChangeEntryMetaSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    path: z.string(),
    oldPath: z.string().nullable(),
    operation: ChangeOperationSchema,
    beforeHash: z.string().nullable(),
    afterHash: z.string().nullable(),
    binary: z.boolean(),
    decisionId: z.string().nullable(),
    invocationId: z.string().nullable(),
    origin: ChangeOriginSchema.optional(),
    /** A rewind made the entry history: listed, never applied. */
    rewound: z.boolean().optional(),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
  }),
);
export type ChangeEntryMeta = z.infer<typeof ChangeEntryMetaSchema>;

/** What an apply did: files written, files whose project copy changed since the plan ran, files left out. */
export const ApplyResultSchema = z.lazy(once(() =>
  z.object({
    planId: z.string(),
    applied: z.array(z.string()),
    conflicts: z.array(z.object({ path: z.string(), expectedHash: z.string().nullable(), actualHash: z.string().nullable(), reason: z.string().optional() })),
    skipped: z.array(z.string()),
    /** Files with something still to apply; the plan stays in apply until none is left. */
    remaining: z.array(z.string()),
    complete: z.boolean(),
    /** Applied to a new branch of the plan's git repository: its name, commit (null: not pushed) and URL. */
    branch: z.object({ name: z.string(), commit: z.string().nullable(), url: z.string() }).optional(),
  }),
));

/** One line of a diff as the diff view draws it; a `note` says a side ends without a newline. */
export const DiffRowSchema = z.lazy(() =>
  z.object({
    kind: z.enum(['context', 'add', 'del', 'note']),
    text: z.string(),
    /** 1-based; null on the side the line is not on. */
    oldLine: z.number().int().positive().nullable(),
    newLine: z.number().int().positive().nullable(),
  }),
);
export type DiffRow = z.infer<typeof DiffRowSchema>;
export const DiffHunkSchema = z.lazy(() => z.object({ header: z.string(), rows: z.array(DiffRowSchema) }));
export type DiffHunk = z.infer<typeof DiffHunkSchema>;

export const ChangeSetSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    createdAt: timestamp,
    entries: z.array(ChangeEntrySchema),
  }),
);
export type ChangeSet = z.infer<typeof ChangeSetSchema>;

export const ChangeSetSummarySchema = z.lazy(() =>
  z.object({
    changesetId: nonEmpty,
    planId: nonEmpty,
    entryCount: z.number().int().nonnegative(),
    files: z.number().int().nonnegative(),
    operations: z.record(ChangeOperationSchema, z.number().int().nonnegative()),
    insertions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
  }),
);
export type ChangeSetSummary = z.infer<typeof ChangeSetSummarySchema>;

// ---- automation profiles --------------------------------------------------

export const AutomationProfileSchema = z.lazy(once(() =>
  z.object({
    name: nonEmpty,
    /** Automatic retries of transient errors; 0 turns automatic retry off. */
    autoRetryTransient: z.number().int().min(0).max(20),
    /** Whether shell.run may run at all. */
    allowShell: z.boolean(),
    /** Whether shell.run's commands may reach the network (they are confined without one otherwise). */
    allowNetwork: z.boolean().default(false),
    /** Whether shell.run may run without OS confinement where none is available, instead of refusing. */
    allowUnconfinedShell: z.boolean().default(false),
    /** Pause before every execute decision (step mode by default). */
    pauseBeforeEachDecision: z.boolean(),
    /** Tool names whose calls wait for the operator's approval; `*` means every tool. */
    approvalRequired: z.array(z.string()),
    /** Tools whose calls never wait for approval: `NAME.TOOL`, or `NAME.*` for every tool of an MCP server. */
    allow: z.array(z.string()).optional(),
    /** MCP tools their server marks read-only (readOnlyHint) need no approval; off unless set. */
    allowReadOnlyMcp: z.boolean().optional(),
  }),
));
export type AutomationProfile = z.infer<typeof AutomationProfileSchema>;

/** Every tool call waits for approval under this entry of `approvalRequired`. */
export const ANY_TOOL = '*';

export const BUILTIN_PROFILES = {
  manual: { name: 'manual', autoRetryTransient: 0, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: true, approvalRequired: [ANY_TOOL] },
  restricted: { name: 'restricted', autoRetryTransient: 3, allowShell: false, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
  supervised: {
    name: 'supervised',
    autoRetryTransient: 3,
    allowShell: true,
    allowNetwork: false,
    allowUnconfinedShell: false,
    pauseBeforeEachDecision: false,
    approvalRequired: ['shell.run', 'file.delete', 'file.rename'],
  },
  trusted: { name: 'trusted', autoRetryTransient: 3, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
  'full-auto': { name: 'full-auto', autoRetryTransient: 5, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
} as const satisfies Record<string, AutomationProfile>;

/** Whether a call of `tool` waits for the operator under `profile`, unless all its calls were approved. */
export function needsApproval(profile: AutomationProfile, tool: string, approvedForPlan: ReadonlySet<string> = new Set()): boolean {
  if (approvedForPlan.has(tool) || allowedByName(profile.allow, tool)) return false;
  return profile.approvalRequired.includes(ANY_TOOL) || profile.approvalRequired.includes(tool);
}
export type BuiltinProfileName = keyof typeof BUILTIN_PROFILES;
export const DEFAULT_PROFILE: BuiltinProfileName = 'trusted';

export const ProfileNameSchema = z.enum(Object.keys(BUILTIN_PROFILES) as [BuiltinProfileName, ...BuiltinProfileName[]]);

/** A profile reference in a plan file: a built-in name, or a built-in with fields overridden. */
export const ProfileRefSchema = z.lazy(() =>
  z.union([
    ProfileNameSchema,
    z
      .object({
        base: ProfileNameSchema.default(DEFAULT_PROFILE),
        /** The tools whose calls wait for approval, in place of the base profile's list. */
        approve: z.array(nonEmpty).optional(),
      })
      .extend(AutomationProfileSchema.unwrap().omit({ name: true }).partial().shape)
      .strict(),
  ]),
);
export type ProfileRef = z.input<typeof ProfileRefSchema>;

export function resolveProfile(ref: ProfileRef | undefined): AutomationProfile {
  if (ref === undefined) return { ...BUILTIN_PROFILES[DEFAULT_PROFILE], approvalRequired: [] };
  if (typeof ref === 'string') {
    const base = BUILTIN_PROFILES[ref];
    return { ...base, approvalRequired: [...base.approvalRequired] };
  }
  const { base = DEFAULT_PROFILE, approve, ...overrides } = ref;
  const builtin = BUILTIN_PROFILES[base];
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...builtin, approvalRequired: [...(approve ?? builtin.approvalRequired)], ...defined, name: base };
}

// ---- plans --------------------------------------------------------------

export const PlanStepSchema = z.lazy(() =>
  z.strictObject({
    step: nonEmpty,
    rationale: z.string().optional(),
    tools: z.array(ToolCallSpecSchema).default([]),
    /** A command that checks the step is done (README.md, "Verify"). */
    check: CheckSpecSchema.optional(),
  }),
);
export type PlanStep = z.infer<typeof PlanStepSchema>;

/** A definition of done: a markdown bullet list as one string, or a list of steps. */
export const DefinitionOfDoneSchema = z.lazy(() =>
  z.union([
    z.string().min(1, 'must not be empty'),
    z.array(z.union([nonEmpty, PlanStepSchema])).min(1, 'needs at least one step'),
  ]),
);
export type DefinitionOfDone = z.infer<typeof DefinitionOfDoneSchema>;

/** The plan file (YAML or JSON); docs/ARCHITECTURE.md "Stable interfaces". */
export const PlanFileSchema = z.lazy(() =>
  z
    .object({
      name: nonEmpty.max(200),
      description: z.string().default(''),
      /** A folder (relative to the plan file), or a git repository a worker clones: `{ git: URL, ref: main }`. */
      project: z.union([z.string(), GitSourceSchema]).optional(),
      automationProfile: ProfileRefSchema.optional(),
      invariants: z.array(z.string()).default([]),
      definitionOfDone: DefinitionOfDoneSchema,
      /** A model strategizes and executes the plan; its definition of done is in plain words. */
      agent: z.union([AgentFileSchema, AcpAgentFileSchema]).optional(),
      /** MCP servers whose tools the model may call, beside those of the settings. */
      mcp: McpConfigSchema.optional(),
      /** Checks run in the sandbox after execute, before apply: a command, or `{ name, run, timeoutSeconds, criteria }`. */
      verify: z.array(CheckSpecSchema).optional(),
      /** Run each step's `check:` right after the step, too. */
      verifyEach: z.boolean().optional(),
    })
    .strict(),
);
export type PlanFile = z.infer<typeof PlanFileSchema>;

// ---- project invariants -------------------------------------------------------

/** A project's `.agents/invariants.yaml`: rules every tool call is held to, and notes that are records only. */
export const ProjectInvariantsSchema = z.lazy(() =>
  z
    .object({
      /** Gitignore-style globs of sandbox paths no tool may create, change, delete or rename. */
      protect: z.array(nonEmpty).default([]),
      /** Globs (`*` matches anything) matched against every simple command of a shell.run command. */
      denyCommands: z.array(nonEmpty).default([]),
      /** When present, every simple command of a shell.run command must match one of these globs. */
      allowCommands: z.array(nonEmpty).optional(),
      notes: z.array(z.string()).default([]),
    })
    .strict(),
);
export type ProjectInvariants = z.infer<typeof ProjectInvariantsSchema>;

export const PlanSchema = z.lazy(once(() =>
  z.object({
    id: nonEmpty,
    name: nonEmpty,
    description: z.string(),
    definitionOfDone: DefinitionOfDoneSchema,
    invariants: z.array(z.string()),
    automationProfile: AutomationProfileSchema,
    /** Absolute path of the project directory the plan works on, if any. */
    projectPath: z.string().nullable(),
    /** In team mode, the git repository the plan's sandbox is cloned from (then projectPath is null). */
    projectSource: PlanGitSourceSchema.nullable().optional(),
    phase: PhaseSchema,
    processingState: ProcessingStateSchema,
    decisionRootId: z.string().nullable(),
    changesetId: z.string().nullable(),
    sandboxRefs: z.array(z.string()),
    errorMessage: z.string().nullable(),
    errorDetails: z.record(z.string(), z.unknown()),
    /** Set while a paused plan waits for the operator's answer rather than for a step or resume. */
    waitingFor: z.enum(['approval']).nullable().default(null),
    /** The project's `.agents/invariants.yaml`, as read at strategize; null before, or without one. */
    projectInvariants: ProjectInvariantsSchema.nullable().default(null),
    /** Set for a plan a model strategizes and executes. */
    agent: AgentSpecSchema.optional(),
    /** Set for a plan a coding agent executes over the Agent Client Protocol (then `agent` is not). */
    acp: AcpPlanAgentSchema.optional(),
    /** Tokens the model used, per step and in all. */
    usage: PlanUsageSchema.optional(),
    /** The operator's answer to the model's last proposal (a rejection, or replan), for its next one. */
    agentFeedback: z.object({ reason: z.string(), previous: z.string() }).nullable().optional(),
    /**
     * A model step stopped for an approval: its conversation, so answering continues it where it
     * stopped. Only the engine reads `state`, and parses it with its own schema (ToolLoopState).
     */
    agentSession: z.object({ decisionId: z.string(), state: z.record(z.string(), z.unknown()) }).nullable().optional(),
    /** The plan file's MCP servers. */
    mcp: McpConfigSchema.optional(),
    /** The plan-level checks (the project's defaults and the plan file's) and `verifyEach`. */
    verify: PlanVerifySchema.optional(),
    /** How the last verify pass came out; null or absent before one ran. */
    checks: PlanChecksSummarySchema.nullable().optional(),
    /** The last rewind: to which step, by whom, and whether it was completed after an interruption. */
    lastRewind: RewindRecordSchema.nullable().optional(),
    /** The plan was forked from another at a step: the steps before it are that plan's, shared. */
    forkedFrom: ForkOriginSchema.optional(),
    /** The plans forked from this one, oldest first. */
    forks: z.array(ForkRefSchema).optional(),
    /** Hunks the operator declined in the review, with why: the model is told of them. */
    rejectedHunks: z.array(RejectedHunkSchema).optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
));
export type Plan = z.infer<typeof PlanSchema>;

// ---- approvals ------------------------------------------------------------------

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const ApprovalStatusSchema = z.enum(APPROVAL_STATUSES);

/** A call (or, for an agent plan, a proposed tree) that waits for the operator; stored, so it survives a restart. */
export const ApprovalSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    /** `budget`: a step used its turns or output tokens; approving gives it more (README.md, "Using a model"). */
    kind: z.enum(['tool', 'plan', 'budget']),
    /** The step the call belongs to, and the call's position in it: a resumed step starts there. */
    decisionId: z.string().nullable(),
    callIndex: z.number().int().nonnegative().nullable(),
    tool: z.string().nullable(),
    args: z.record(z.string(), z.unknown()),
    description: z.string(),
    rationale: z.string(),
    /** For writes and edits, the diff the call would make in the sandbox. */
    diff: z.string().nullable(),
    /** The same diff as the console draws it, hunks as rows; null where `diff` is, and for approvals stored before it was kept. */
    hunks: z.array(DiffHunkSchema).nullable().default(null),
    /** Why a shell.run call waits though the profile may not ask: the part of it the command rules cannot check. */
    commandRule: CommandRuleSchema.optional(),
    /** For a call of an MCP server's tool: the server, the tool and what the server says it does. */
    mcp: McpCallInfoSchema.optional(),
    status: ApprovalStatusSchema,
    /** `all`: every later call of this tool in the plan is approved too. */
    scope: z.enum(['once', 'all']).nullable(),
    answeredBy: z.string().nullable(),
    /** The machine the answer was given on; absent for answers recorded before it was kept. */
    answeredFrom: z.string().optional(),
    answeredAt: timestamp.nullable(),
    reason: z.string().nullable(),
    /** Set once the answer has been acted on, so a later retry asks again. */
    usedAt: timestamp.nullable(),
    createdAt: timestamp,
  }),
);
export type Approval = z.infer<typeof ApprovalSchema>;

// ---- errors ---------------------------------------------------------------

export const ERROR_CATEGORIES = [
  'transient',
  'validation',
  'policy',
  'tool',
  'conflict',
  'interrupted',
  'internal',
  /** The operator rejected the call (approvals). */
  'rejected',
  /** A project invariant refused the call. */
  'invariant',
  /** The model provider refused the credentials (401, 403). */
  'auth',
  /** The provider does not know the model, or no model is configured. */
  'model_config',
  /** The model's proposal did not validate, even after it was told why. */
  'model_output',
  /** A step used up its turn or token budget. */
  'budget',
  /** A check of the plan failed in its sandbox (README.md, "Verify"): apply needs the operator's confirmation. */
  'verification',
  /** The plan's git repository could not be cloned or fetched (its URL, ref, keys or network). */
  'project_unreachable',
] as const;
export const ErrorCategorySchema = z.enum(ERROR_CATEGORIES);
export type ErrorCategory = z.infer<typeof ErrorCategorySchema>;

// ---- results ----------------------------------------------------------------

export const RuntimeExecuteResultSchema = z.lazy(() =>
  z.object({
    changesetId: nonEmpty,
    toolCallCount: z.number().int().nonnegative(),
    sandboxRefs: z.array(z.string()),
    decisionIdsProcessed: z.array(z.string()),
    executionDurationMs: z.number().nonnegative(),
  }),
);
export type RuntimeExecuteResult = z.infer<typeof RuntimeExecuteResultSchema>;

export const ExecuteResultSchema = z.lazy(() =>
  z.object({
    changesetId: nonEmpty,
    changeset: ChangeSetSchema,
    toolCallsCount: z.number().int().nonnegative(),
    sandboxRefs: z.array(z.string()),
  }),
);
export type ExecuteResult = z.infer<typeof ExecuteResultSchema>;

/** `correct`: the model runs the failed step again, told of the failure and the operator's note. */
export const RECOVERY_ACTIONS = ['retry', 'revert_to_strategize', 'correct_input', 'manual', 'skip', 'edit_step', 'change_profile', 'correct'] as const;
export const RecoveryActionSchema = z.enum(RECOVERY_ACTIONS);
export type RecoveryAction = z.infer<typeof RecoveryActionSchema>;

/** One failure, as recorded by the error recovery service; persisted, so history survives restarts. */
export const ErrorRecordSchema = z.lazy(once(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    phase: PhaseSchema,
    decisionId: z.string().nullable(),
    attempt: z.number().int().positive(),
    category: ErrorCategorySchema,
    retriable: z.boolean(),
    recoveryAction: RecoveryActionSchema,
    message: z.string(),
    stack: z.string().nullable(),
    hint: z.string(),
    /** The suggested next step: an action and its arguments (shared/actions.ts), never a command line. */
    next: NextStepSchema.nullable(),
    /** What happened next: retried automatically, or gave up. */
    outcome: z.enum(['retried', 'gave_up']),
    createdAt: timestamp,
  }),
));
export type ErrorRecord = z.infer<typeof ErrorRecordSchema>;
