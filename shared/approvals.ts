// Approvals: a call, a proposed tree or a step's budget that waits for the operator's answer.
import { z } from 'zod';
import { DiffHunkSchema } from './changes';
import { ElicitationSchema } from './elicitation';
import { McpCallInfoSchema } from './mcp';
import { CommandRuleSchema } from './tool-calls';

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

/** `input`: an MCP server asks the operator a question mid-call (shared/elicitation.ts). `signin`: a plan's MCP server needs a sign-in (`tool` names the server). */
export const APPROVAL_KINDS = ['tool', 'plan', 'budget', 'input', 'signin'] as const;
export const ApprovalKindSchema = z.enum(APPROVAL_KINDS);
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>;

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const ApprovalStatusSchema = z.enum(APPROVAL_STATUSES);

/** A call (or, for an agent plan, a proposed tree) that waits for the operator; stored, so it survives a restart. */
export const ApprovalSchema = z.lazy(() =>
  z.object({
    id: nonEmpty,
    planId: nonEmpty,
    /** `budget`: a step used its turns or output tokens; approving gives it more (README.md, "Using a model"). `input`: `args` is the operator's answer. */
    kind: ApprovalKindSchema,
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
    /** For kind `input`: the server's question, answered in `args`. */
    elicitation: ElicitationSchema.optional(),
    /** For kind `input`: the call that asked, whose id it keeps when it runs again with the answer (what it wrote before asking stays its own). */
    invocationId: z.string().optional(),
    /** For kind `input`: when a question nobody answered is cancelled (agents serve and the desktop app watch for it). */
    expiresAt: timestamp.optional(),
    /** For kind `input`, rejected: cancelled (by the operator, or at `expiresAt`) rather than declined; the server hears cancel. */
    cancelled: z.boolean().optional(),
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
