import { z } from 'zod';

/** An MCP server's name: its tools are `NAME.TOOL`, so it is a simple identifier. */
export const MCP_SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;
/** The built-in tools' prefixes: a server by these names would shadow them (`file.write`). */
export const RESERVED_MCP_NAMES = ['file', 'shell'] as const;

export const McpServerNameSchema = z
  .string()
  .regex(MCP_SERVER_NAME, 'must be a simple identifier (a letter, then letters, digits, _ or -; at most 40)')
  .refine((name) => !(RESERVED_MCP_NAMES as readonly string[]).includes(name), { message: `must not be ${RESERVED_MCP_NAMES.join(' or ')} (the built-in tools' names)` });

const timeoutMs = z.number().int().positive().max(3_600_000).optional().describe('How long one call may take before it fails the step; default 60 s');

/** A local server: a command run confined over the sandbox, spoken to over stdio. */
export const McpStdioServerSchema = z
  .object({
    command: z.string().min(1, 'must not be empty'),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    timeoutMs,
  })
  .strict();

/** A remote server, spoken to over streamable HTTP. */
export const McpHttpServerSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    timeoutMs,
  })
  .strict();

export const McpServerSchema = z.union([McpStdioServerSchema, McpHttpServerSchema], { error: 'must have either command (a local server) or url (a remote one)' });
export type McpServer = z.infer<typeof McpServerSchema>;
export type McpServerInput = z.input<typeof McpServerSchema>;

export function isStdioServer(server: McpServer): server is z.infer<typeof McpStdioServerSchema> {
  return 'command' in server;
}

/** `mcp:` in a plan file and in settings.json. */
export const McpConfigSchema = z
  .object({
    // Names are checked one by one, so a bad one is reported at its own path with its own reason.
    servers: z
      .record(z.string(), McpServerSchema)
      .superRefine((servers, ctx) => {
        for (const name of Object.keys(servers)) {
          const problem = McpServerNameSchema.safeParse(name).error?.issues[0];
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: `the name ${problem.message}` });
        }
      })
      .default({}),
  })
  .strict();
export type McpConfig = z.infer<typeof McpConfigSchema>;

/** What an approval of an MCP call shows: which server, which of its tools, what the server says the tool does. */
export const McpCallInfoSchema = z.object({
  server: z.string(),
  tool: z.string(),
  description: z.string(),
  readOnly: z.boolean(),
});
export type McpCallInfo = z.infer<typeof McpCallInfoSchema>;

/** Whether `allow` (profile.allow) names the tool: `NAME.TOOL`, or `NAME.*` for every tool of a server. */
export function allowedByName(allow: readonly string[] | undefined, tool: string): boolean {
  return (allow ?? []).some((entry) => entry === tool || (entry.endsWith('.*') && tool.startsWith(entry.slice(0, -1))));
}

/**
 * Whether a call of an MCP tool waits for the operator: always, except under full-auto, when the
 * profile allows it by name, or when it allows tools the server marks read-only and this is one.
 */
export function mcpNeedsApproval(profile: { name: string; allow?: readonly string[]; allowReadOnlyMcp?: boolean }, tool: string, readOnly: boolean): boolean {
  if (profile.name === 'full-auto') return false;
  if (allowedByName(profile.allow, tool)) return false;
  return !(readOnly && profile.allowReadOnlyMcp === true);
}
