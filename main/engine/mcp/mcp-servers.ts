import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AutomationProfile } from '../../../shared/profiles';
import type { Confinement } from '../../../shared/tool-calls';
import { isStdioServer, type McpServer, shownUrl, withoutMcpSecrets } from '../../../shared/mcp';
import type { Elicitation, ElicitationAnswer } from '../../../shared/elicitation';
import { ApprovalPending, EngineError } from '../errors';
import { resolveInSandbox } from '../sandbox/paths';
import { TreeChangeTracker } from '../sandbox/tracker';
import type { ToolDefinition } from '../tools/definition';
import type { ToolRegistry } from '../run/tool-runner';
import { sandboxRootOf, toolError } from '../tools/common';
import type { ConfinementProbe } from '../tools/confinement';
import { McpSignInNeeded, scopeChallengeFetch } from './oauth';
import { DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_START_TIMEOUT_MS, localLaunch, serverFailure } from './launch';

/** One tool as its server lists it. */
export interface McpToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

/** What a server asks of the operator mid-call (`elicitation/create`), and the protocol's three answers. */
export type McpElicitation = ElicitRequest['params'];
export type McpElicitationAnswer = ElicitResult;

/** A server's progress on one call (`notifications/progress`). */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A started server: its client, its tools, and how it was confined. */
export interface ConnectedServer {
  name: string;
  client: Client;
  tools: McpToolListing[];
  confinement: Confinement | null;
  /** The protocol revision the server and we agreed on. */
  protocolVersion: string | null;
  /** Text about the server (an error) with its secrets out, as withoutMcpSecrets makes it. */
  withoutSecrets(text: string): string;
  /** Where the server's log messages go now (the running call's plan log); none: they are dropped. */
  logSink: ((entry: McpLogEntry) => void) | null;
  /** Who answers the server's questions now (the running call's operator); none: the client's `elicit`. */
  elicitSink: ((question: Elicitation) => Promise<ElicitationAnswer>) | null;
  close(): Promise<void>;
}

/** One log message of a server (`notifications/message`). */
export interface McpLogEntry {
  server: string;
  level: string;
  logger?: string;
  data: unknown;
}

export interface ConnectOptions {
  sandboxRoot: string;
  profile: Pick<AutomationProfile, 'allowNetwork' | 'allowUnconfinedShell'> & { allowShell?: boolean };
  confinement?: () => Promise<ConfinementProbe>;
  startTimeoutMs?: number;
  /** Answers a server's `elicitation/create`; without it the client does not offer elicitation. */
  elicit?: (request: McpElicitation, server: string) => Promise<McpElicitationAnswer>;
  /** The sign-in of a remote server that has one (tokens kept by `agents mcp login`). */
  auth?: (name: string) => OAuthClientProvider | undefined;
  /** A server's log message (`notifications/message`), besides the connected server's logSink. */
  onLog?: (entry: McpLogEntry) => void;
}

/** The client's name and version in `initialize`. */
export const MCP_CLIENT_INFO = { name: 'cleveragents', version: '0.1.0' } as const;

/** An error's message; the SDK's HTTP errors keep the status apart (in `code`), so it is put in front. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code >= 400 && code < 600 && !error.message.includes(String(code)) ? `HTTP ${code}: ${error.message}` : error.message;
}

/**
 * Where a remote server is fetched and with which headers: a URL's user and password (which fetch
 * refuses) become an `Authorization: Basic` header, unless the server's headers give one.
 */
export function remoteRequest(server: Extract<McpServer, { url: string }>): { url: string; headers: Record<string, string> } {
  const url = new URL(server.url);
  if (!url.username && !url.password) return { url: server.url, headers: server.headers };
  const basic = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
  [url.username, url.password] = ['', ''];
  const given = Object.keys(server.headers).some((key) => key.toLowerCase() === 'authorization');
  return { url: url.href, headers: given ? server.headers : { ...server.headers, Authorization: `Basic ${basic}` } };
}

/** The connected server of each client, whose logSink its log messages go to. */
const sinks = new WeakMap<Client, ConnectedServer>();

/** The revision each client agreed on in `initialize`, as the SDK tells its transport. */
const agreedVersions = new WeakMap<Client, string>();

function recordVersion(client: Client, transport: Transport): Transport {
  const set = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    agreedVersions.set(client, version);
    set?.(version);
  };
  return transport;
}

/** The official SDK's client, offering elicitation (defaults filled in, SEP-1034) when someone answers it, and passing on log messages. */
async function newClient(name: string, options: ConnectOptions): Promise<Client> {
  const [{ Client }, { ElicitRequestSchema, LoggingMessageNotificationSchema }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/types.js')]);
  const elicit = options.elicit;
  const client = new Client(MCP_CLIENT_INFO, { capabilities: elicit ? { elicitation: { form: { applyDefaults: true } } } : {} });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const sink = sinks.get(client)?.elicitSink;
      const params = request.params;
      // A running call's question goes to its operator; a page to open (URL mode) is not a form to fill.
      if (!sink || params.mode === 'url') return await elicit(params, name);
      const answer = await sink({ server: name, message: params.message, requestedSchema: params.requestedSchema });
      return answer as McpElicitationAnswer;
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const entry = { server: name, ...notification.params };
    options.onLog?.(entry);
    sinks.get(client)?.logSink?.(entry);
  });
  return client;
}

/**
 * Starts one server through the official MCP SDK's client (stdio, confined, or streamable HTTP,
 * which resumes a dropped stream) and lists its tools. Fails within the start time limit, with an
 * error that names the server.
 */
export async function connectMcpServer(name: string, server: McpServer, options: ConnectOptions): Promise<ConnectedServer> {
  const timeout = options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
  // The client's errors may repeat the URL, and a server may echo a key: what we show passes through this.
  const withoutSecrets = (text: string) => withoutMcpSecrets(text, server);
  const client = await newClient(name, options);
  if (!isStdioServer(server)) {
    const request = remoteRequest(server);
    // The Basic header made of the URL's user is a secret too.
    const withoutAnySecret = (text: string) => withoutMcpSecrets(text, { ...server, headers: request.headers });
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const authProvider = options.auth?.(name);
    const transport = new StreamableHTTPClientTransport(new URL(request.url), { requestInit: { headers: request.headers }, authProvider, fetch: scopeChallengeFetch(authProvider) });
    // The browser was opened for a sign-in (at initialize, or at tools/list where initialize needs none): the code its redirect brings finishes it.
    const signInNeeded = async (error: unknown) => authProvider !== undefined && error instanceof (await import('@modelcontextprotocol/sdk/client/auth.js')).UnauthorizedError;
    try {
      await client.connect(recordVersion(client, transport), { timeout });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (await signInNeeded(error)) throw new McpSignInNeeded(name, (code) => transport.finishAuth(code));
      const said = withoutAnySecret(messageOf(error));
      // A server that wants a sign-in answers 401 before one is kept.
      const signIn = /HTTP 401/.test(said) && !authProvider && !Object.keys(request.headers).some((key) => key.toLowerCase() === 'authorization') ? ` (if it signs in with OAuth: agents mcp login ${name})` : '';
      // `signIn`: a sign-in (a first one, or a new one the kept tokens cannot refresh into) is what it waits for.
      const needsSignIn = signIn !== '' || (error instanceof EngineError && error.details.signIn === true);
      throw serverFailure(name, `MCP server "${name}": did not start: ${said}${signIn}`, 'tool', { url: shownUrl(server.url), ...(needsSignIn ? { signIn: true } : {}) });
    }
    return listed(name, client, null, withoutAnySecret, () => client.close(), async (error) => ((await signInNeeded(error)) ? new McpSignInNeeded(name, (code) => transport.finishAuth(code)) : null));
  }
  const launch = await localLaunch(name, server, options.sandboxRoot, options.profile, options.confinement);
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: launch.cwd, stderr: launch.stderr });
  try {
    await client.connect(recordVersion(client, transport), { timeout });
  } catch (error) {
    await client.close().catch(() => undefined);
    // The server's own last words say why more often than the client's "Connection closed".
    const said = launch.stderrTail();
    launch.dispose();
    const why = /closed/i.test(messageOf(error)) ? 'it exited before answering' : messageOf(error);
    throw serverFailure(name, withoutSecrets(`MCP server "${name}": did not start (${server.command}): ${why}${said ? `; it said: ${said}` : ''}`), 'tool', { command: server.command });
  }
  // Closing waits (briefly) until the process is gone, so a stopped run leaves no server behind.
  const pid = transport.pid;
  return listed(name, client, launch.confinement, withoutSecrets, async () => {
    await client.close().catch(() => undefined);
    if (pid !== null) await exited(pid, 2_000);
    launch.dispose();
  });
}

/** Resolves once `pid` has exited (or after `ms`). */
async function exited(pid: number, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 20))) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
}

async function listed(
  name: string,
  client: Client,
  confinement: Confinement | null,
  withoutSecrets: (text: string) => string,
  close: () => Promise<void>,
  signIn: (error: unknown) => Promise<McpSignInNeeded | null> = async () => null,
): Promise<ConnectedServer> {
  try {
    // A server without tools (no `tools` capability) lists none.
    const tools = client.getServerCapabilities()?.tools ? (await client.listTools(undefined, { timeout: DEFAULT_MCP_START_TIMEOUT_MS })).tools : [];
    const connected: ConnectedServer = {
      name,
      client,
      confinement,
      protocolVersion: agreedVersions.get(client) ?? null,
      withoutSecrets,
      logSink: null,
      elicitSink: null,
      close,
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description ?? tool.annotations?.title ?? '',
        inputSchema: tool.inputSchema as Record<string, unknown>,
        readOnly: tool.annotations?.readOnlyHint === true,
      })),
    };
    sinks.set(client, connected);
    return connected;
  } catch (error) {
    await close();
    const needsSignIn = (error instanceof EngineError && error.details.signIn === true) || /HTTP 401/.test(messageOf(error));
    throw (await signIn(error)) ?? serverFailure(name, `MCP server "${name}": started but did not list its tools: ${withoutSecrets(messageOf(error))}`, 'tool', needsSignIn ? { signIn: true } : {});
  }
}

/** The tool's JSON Schema as zod, for the ToolRunner's check and the model; a schema zod cannot read takes any object. */
function schemaOf(inputSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(inputSchema) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** What a call answered, for the model and the invocation log: its text, or its structured content. */
function resultOf(answer: object): unknown {
  const result = answer as { content?: unknown; structuredContent?: unknown; toolResult?: unknown };
  if (!('content' in result)) return result.toolResult;
  const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  if (content.length > 0 && content.every((part) => part.type === 'text')) return content.map((part) => part.text ?? '').join('\n');
  return result.structuredContent ?? content;
}

/**
 * Calls one tool of a started server. A call that reports progress has its time limit start again
 * at each report, so a long call that keeps saying how far it got is not cut off; an error (the
 * SDK's, a timeout) names the server and the tool.
 */
export async function callConnectedTool(
  server: ConnectedServer,
  tool: string,
  args: Record<string, unknown>,
  options: { timeoutMs?: number; onProgress?: (progress: McpProgress) => void; signal?: AbortSignal } = {},
): Promise<CallToolResult> {
  const timeout = options.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
  const onProgress = options.onProgress;
  try {
    // With onprogress the request carries a progress token, which is what asks the server for progress.
    const answer = await server.client.callTool({ name: tool, arguments: args }, undefined, { timeout, signal: options.signal, resetTimeoutOnProgress: true, onprogress: (p) => onProgress?.({ progress: p.progress, total: p.total, message: p.message }) });
    return answer as CallToolResult;
  } catch (error) {
    const message = server.withoutSecrets(messageOf(error));
    const what = /timed out/i.test(message) ? `did not answer within ${timeout} ms` : `failed: ${message}`;
    throw serverFailure(server.name, `${server.name}.${tool}: the MCP server "${server.name}" ${what}`, 'transient', { tool: `${server.name}.${tool}`, timeoutMs: timeout });
  }
}

/**
 * The server's tools as ToolDefinitions named `NAME.TOOL`: each call runs through the ToolRunner as
 * a sandbox tool's does, and what it changes in the sandbox is captured as shell.run's changes are.
 */
export function mcpToolDefinitions(server: ConnectedServer, options: { tracker: TreeChangeTracker; timeoutMs?: number; questionTimeoutMs?: number }): ToolDefinition<Record<string, unknown>>[] {
  const timeout = options.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
  return server.tools.map((tool) => {
    const name = `${server.name}.${tool.name}`;
    return {
      name,
      description: tool.description || `${tool.name} of the MCP server ${server.name}`,
      effect: 'exec',
      schema: schemaOf(tool.inputSchema),
      mcp: { server: server.name, tool: tool.name, description: tool.description, readOnly: tool.readOnly },
      async run(args, context) {
        const { root } = await resolveInSandbox(sandboxRootOf(name, context), '.');
        if (server.confinement) context.recordConfinement?.(server.confinement);
        const log = context.log;
        // What the server logs while this call runs goes to the plan's log.
        if (log) server.logSink = (entry) => log({ server: entry.server, level: entry.level, logger: entry.logger, text: typeof entry.data === 'string' ? entry.data : JSON.stringify(entry.data) });
        // A question the server asks goes to the operator; one that must wait for the answer ends the call (it runs again once answered).
        const abort = new AbortController();
        let stopped: ApprovalPending | null = null;
        const elicit = context.elicit?.bind(context);
        if (elicit) {
          server.elicitSink = async (question) => {
            try {
              return await elicit(question, { timeoutMs: options.questionTimeoutMs });
            } catch (error) {
              if (!(error instanceof ApprovalPending)) throw error;
              stopped = error;
              abort.abort(error);
              return { action: 'cancel' };
            }
          };
        }
        const tracked = await options.tracker
          .track(root, () => callConnectedTool(server, tool.name, args, { timeoutMs: timeout, onProgress: context.reportProgress?.bind(context), signal: abort.signal }))
          .finally(() => {
            server.logSink = null;
            server.elicitSink = null;
          });
        // Whatever the server did to the sandbox is recorded, even when the call failed or stopped for its question.
        for (const change of tracked.changes) context.recordChange(change);
        if (stopped) throw stopped;
        if (!tracked.outcome.ok) throw tracked.outcome.error;
        const result = tracked.outcome.value;
        const value = resultOf(result);
        // The server's own refusal (a bad path, say) goes back to the model, as a sandbox tool's does.
        if ('isError' in result && result.isError === true) throw toolError(name, typeof value === 'string' ? value : JSON.stringify(value));
        return value;
      },
    };
  });
}

export interface McpSessionOptions extends ConnectOptions {
  /** Shared with nothing else by default. */
  tracker?: TreeChangeTracker;
}

/**
 * The MCP servers of one plan's run: started on first use, their tools added to the run's registry,
 * closed when the run ends. A server that fails to start fails the step, naming the server.
 */
export class McpSession {
  private started: Promise<void> | null = null;
  private readonly connected: ConnectedServer[] = [];
  private closed = false;

  constructor(
    private readonly servers: Readonly<Record<string, McpServer>>,
    private readonly registry: ToolRegistry,
    private readonly options: McpSessionOptions,
  ) {}

  get size(): number {
    return Object.keys(this.servers).length;
  }

  /** Starts every server (once) and registers its tools; a failure is thrown again to every caller. */
  start(): Promise<void> {
    this.started ??= this.startAll();
    return this.started;
  }

  private async startAll(): Promise<void> {
    const tracker = this.options.tracker ?? new TreeChangeTracker();
    for (const [name, server] of Object.entries(this.servers)) {
      if (this.closed) throw new EngineError('the run ended before its MCP servers started', 'interrupted');
      // Elicitation is always offered: a running call's question goes to the operator (ElicitationGate), any other is cancelled.
      const connected = await connectMcpServer(name, server, { ...this.options, elicit: this.options.elicit ?? (async () => ({ action: 'cancel' })) });
      this.connected.push(connected);
      for (const tool of mcpToolDefinitions(connected, { tracker, timeoutMs: server.timeoutMs, questionTimeoutMs: server.questionTimeoutMs })) this.registry.register(tool);
    }
  }

  /** Stops every server started; safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    await this.started?.catch(() => undefined);
    const all = this.connected.splice(0);
    await Promise.all(all.map((server) => server.close()));
  }
}
