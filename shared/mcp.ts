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
const questionTimeoutMs = z.number().int().positive().max(7 * 86_400_000).optional().describe("How long a question the server asks waits for the operator before it is cancelled; default 30 minutes");

/** A local server: a command run confined over the sandbox, spoken to over stdio. */
export const McpStdioServerSchema = z.lazy(() =>
  z
    .object({
      command: z.string().min(1, 'must not be empty'),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      timeoutMs,
      questionTimeoutMs,
    })
    .strict(),
);

/** A remote server, spoken to over streamable HTTP. */
export const McpHttpServerSchema = z.lazy(() =>
  z
    .object({
      url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
      headers: z.record(z.string(), z.string()).default({}),
      timeoutMs,
      questionTimeoutMs,
    })
    .strict(),
);

export const McpServerSchema = z.lazy(() =>
  z.union([McpStdioServerSchema, McpHttpServerSchema], { error: 'must have either command (a local server) or url (a remote one)' }),
);
export type McpServer = z.infer<typeof McpServerSchema>;
export type McpServerInput = z.input<typeof McpServerSchema>;

export function isStdioServer(server: McpServer): server is z.infer<typeof McpStdioServerSchema> {
  return 'command' in server;
}

/** `mcp:` in a plan file and in settings.json. */
export const McpConfigSchema = z.lazy(() =>
  z
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
    .strict(),
);
export type McpConfig = z.infer<typeof McpConfigSchema>;

// Environment variables, headers, a URL's user, query and token-like path segments, and the values of
// key-like arguments often carry keys: an operator reads them by name only.
const SET = '(set)';
const HIDDEN = '(hidden)';
const hidden = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((key) => [key, SET]));

/** Whether a name says its value is a secret: `--api-key`, `--token`, `GITHUB_TOKEN`, `clientSecret`, `Authorization`. */
function secretName(name: string): boolean {
  const words = name.replace(/^-+/, '').replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return /(?:^|[-_.])(?:apikey|key|token|secret|password|passwd|pwd|pass|auth|authorization|credentials?|bearer)$/i.test(words);
}

/** A hidden text, and the secret values it stood for (as written, and decoded where a URL encodes them). */
interface Hidden {
  shown: string;
  secrets: string[];
}

function decodedToo(values: string[]): string[] {
  return values.flatMap((value) => {
    try {
      return [value, decodeURIComponent(value)];
    } catch {
      return [value];
    }
  });
}

/** A path segment shown as is: a plain lowercase word (`mcp`, `v1`, `sse`); anything else may be a token. */
const PLAIN_SEGMENT = /^[a-z]+(?:[-_.][a-z]+)*[0-9]{0,2}$/;

/** A URL as scheme://host:port/path, its user, query values and token-like path segments hidden. */
function hideUrl(url: string): Hidden {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { shown: HIDDEN, secrets: [url] };
  }
  const values = parsed.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  const secrets = [parsed.username, parsed.password, ...values, parsed.hash.slice(1)];
  const segments = parsed.pathname.split('/');
  const path = segments.map((segment, i) => {
    if (segment === '' || (segment.length <= 24 && PLAIN_SEGMENT.test(segment) && !secretName(segments[i - 1] ?? ''))) return segment;
    secrets.push(segment);
    return HIDDEN;
  });
  const query = [...parsed.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${SET}`).join('&');
  const user = parsed.username || parsed.password ? `${SET}@` : '';
  return { shown: `${parsed.protocol}//${user}${parsed.host}${path.join('/')}${query ? `?${query}` : ''}`, secrets: decodedToo(secrets.filter(Boolean)) };
}

/** One argument of a local server, hidden where it is a secret: after `--token`, in `API_KEY=...`, a URL's secrets, a `Bearer ...`. */
function hideArg(arg: string, previous: string | undefined): Hidden {
  if (previous !== undefined && /^-{1,2}[A-Za-z][\w.-]*$/.test(previous) && secretName(previous)) return { shown: SET, secrets: [arg] };
  if (/^https?:\/\//i.test(arg)) return hideUrl(arg);
  const pair = /^(-{0,2}[A-Za-z][\w.-]*)(\s*[=:]\s*)(.+)$/s.exec(arg);
  if (pair && secretName(pair[1])) return { shown: `${pair[1]}${pair[2]}${SET}`, secrets: [pair[3]] };
  const secrets: string[] = [];
  const shown = arg.replace(/\b(Bearer|Basic)\s+(\S+)/gi, (_all, scheme: string, value: string) => {
    secrets.push(value);
    return `${scheme} ${SET}`;
  });
  return { shown, secrets };
}

const hideArgs = (args: readonly string[]): Hidden[] => args.map((arg, i) => hideArg(arg, args[i - 1]));

/** A URL as the CLI and the console show it: scheme://host:port/path, its user, query values and token-like path segments hidden. */
export function shownUrl(url: string): string {
  return hideUrl(url).shown;
}

/** A local server's arguments as shown: the values of key-like flags and pairs, and a URL's secrets, hidden. */
export function shownArgs(args: readonly string[]): string[] {
  return hideArgs(args).map((arg) => arg.shown);
}

/**
 * Text about a server (an error, what the server said) with none of its secrets: its URL as
 * shownUrl shows it, every secret value (environment, headers, URL, arguments) replaced.
 */
export function withoutMcpSecrets(text: string, server: McpServer): string {
  let out = text;
  let secrets: string[];
  if (isStdioServer(server)) {
    secrets = [...Object.values(server.env), ...hideArgs(server.args).flatMap((arg) => arg.secrets)];
  } else {
    const url = hideUrl(server.url);
    // A header's value, and its credentials without the scheme (`Basic ...`), which a server may echo alone.
    secrets = [...Object.values(server.headers).flatMap((value) => [value, value.replace(/^\w+\s+/, '')]), ...url.secrets];
    // The URL as written, as parsed, and as fetched without its user: each is one shown URL.
    const forms = [server.url];
    try {
      const parsed = new URL(server.url);
      forms.push(parsed.href);
      [parsed.username, parsed.password] = ['', ''];
      forms.push(parsed.href);
    } catch {
      // not a URL: its pieces go below
    }
    for (const form of forms.sort((a, b) => b.length - a.length)) out = out.replaceAll(form, url.shown);
  }
  // A short value (a port, a flag's 1) is too common to replace everywhere, and too short to be a key.
  for (const secret of secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) out = out.replaceAll(secret, HIDDEN);
  return out;
}

/** "npx mcp-server-filesystem . (env: TOKEN)": a server in one line, its secret values left out. */
export function describeMcpServer(server: McpServer): string {
  if (!isStdioServer(server)) {
    const headers = Object.keys(server.headers);
    return `${shownUrl(server.url)}${headers.length > 0 ? ` (headers: ${headers.join(', ')})` : ''}`;
  }
  const env = Object.keys(server.env);
  return `${[server.command, ...shownArgs(server.args)].join(' ')}${env.length > 0 ? ` (env: ${env.join(', ')})` : ''}`;
}

/** The MCP servers in the settings, as the console's Settings lists them. */
export const McpServersViewSchema = z.lazy(() =>
  z.object({ servers: z.array(z.object({ name: z.string(), summary: z.string(), local: z.boolean() })) }),
);
export type McpServersView = z.infer<typeof McpServersViewSchema>;

/** A server added from the console's Settings: a command line (a local server) or a URL (a remote one). */
export const McpServerAddSchema = z.lazy(() =>
  z
    .object({ name: z.string().min(1).max(40), commandLine: z.string().trim().min(1).max(4000).optional(), url: z.string().trim().min(1).max(4000).optional() })
    .strict(),
);

/**
 * A server as the CLI and the console show it: its environment and header values, a URL's user,
 * query values and token-like path segments, and key-like arguments, hidden.
 */
export function shownServer(server: McpServer): McpServer {
  return isStdioServer(server) ? { ...server, args: shownArgs(server.args), env: hidden(server.env) } : { ...server, url: shownUrl(server.url), headers: hidden(server.headers) };
}

/**
 * A response with the MCP servers of its plan (or plans) shown as shownServer does, and an inline
 * coding agent's environment values hidden: a plan keeps them to run them, and `plan show --json`
 * or the console must not print their keys.
 */
export function withMcpHidden<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  const hide = (given: unknown): unknown => {
    let plan = given;
    // An inline coding agent (shared/acp.ts) keeps its environment with the plan: its values are as secret.
    const acp = (plan as { acp?: { env?: Record<string, string> } } | null)?.acp;
    if (acp?.env) plan = { ...(plan as object), acp: { ...acp, env: hidden(acp.env) } };
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
export const McpCallInfoSchema = z.lazy(() =>
  z.object({
    server: z.string(),
    tool: z.string(),
    description: z.string(),
    readOnly: z.boolean(),
  }),
);
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
