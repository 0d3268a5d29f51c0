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

// Environment variables, headers and a URL's user or query often carry keys: an operator reads them by name only.
const hidden = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((key) => [key, '(set)']));

function hiddenUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) [parsed.username, parsed.password] = ['(set)', ''];
    for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, '(set)');
    return parsed.toString().replaceAll('%28set%29', '(set)');
  } catch {
    return url;
  }
}

/** A server as the CLI and the console show it: its environment and header values, and a URL's credentials and query, hidden. */
export function shownServer(server: McpServer): McpServer {
  return isStdioServer(server) ? { ...server, env: hidden(server.env) } : { ...server, url: hiddenUrl(server.url), headers: hidden(server.headers) };
}

/**
 * A response with the MCP servers of its plan (or plans) shown as shownServer does: a plan keeps a
 * plan file's servers to run them, and `plan show --json` or the console must not print their keys.
 */
export function withMcpHidden<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  const hide = (plan: unknown): unknown => {
    const mcp = (plan as { mcp?: McpConfig } | null)?.mcp;
    if (!mcp?.servers) return plan;
    return { ...(plan as object), mcp: { ...mcp, servers: Object.fromEntries(Object.entries(mcp.servers).map(([name, s]) => [name, shownServer(s)])) } };
  };
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> = hide(record) as Record<string, unknown>;
  if (record.plan && typeof record.plan === 'object') out = { ...out, plan: hide(record.plan) };
  if (Array.isArray(record.plans)) out = { ...out, plans: record.plans.map(hide) };
  return out as T;
}

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
