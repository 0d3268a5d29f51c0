// A plan's tool calls: as a plan file names them, and as the engine records each one it ran.
import { z } from 'zod';

const nonEmpty = z.string().min(1, 'must not be empty');
const timestamp = z.string();

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
