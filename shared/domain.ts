import { z } from 'zod';
import { once } from './once';
import { AgentFileSchema, AgentSpecSchema, PlanUsageSchema } from './agent';
import { McpConfigSchema } from './mcp';
import { AcpAgentFileSchema, AcpPlanAgentSchema } from './acp';
import { CheckSchema, CheckSpecSchema, PlanChecksSummarySchema, PlanVerifySchema } from './checks';
import { ForkOriginSchema, ForkRefSchema, RewindRecordSchema } from './checkpoints';
import { RejectedHunkSchema } from './review-feedback';
import { GitSourceSchema, PlanGitSourceSchema } from './git-source';
import { ToolCallSpecSchema } from './tool-calls';
import { ChangeSetSchema } from './changes';
import { SubtaskSchema } from './subtasks';
import { AutomationProfileSchema, ProfileRefSchema } from './profiles';

export const PHASES = ['strategize', 'execute', 'apply'] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

export const PROCESSING_STATES = ['queued', 'processing', 'paused', 'complete', 'errored', 'cancelled'] as const;
export const ProcessingStateSchema = z.enum(PROCESSING_STATES);
export type ProcessingState = z.infer<typeof ProcessingStateSchema>;

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

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
    /** A coding agent's sub-tasks for the step (its last `plan` update); absent before it sent one. */
    subtasks: z.array(SubtaskSchema).optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export type StrategyDecision = z.infer<typeof StrategyDecisionSchema>;

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
