import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AutomationProfile } from '../../shared/profiles';
import type { Plan } from '../../shared/domain';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { type McpServer, McpServerNameSchema, McpServerSchema } from '../../shared/mcp';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngineError } from '../engine/errors';
import type { ConnectOptions, McpProgress, McpToolListing } from '../engine/mcp/mcp-servers';
import type { SettingsStore } from './settings';

/** The servers an agent plan's run starts: the settings', then the plan file's (which win on a name both use). */
export function mcpServersOf(plan: Pick<Plan, 'mcp'>, settings: SettingsStore): Record<string, McpServer> {
  return { ...(settings.read().mcp?.servers ?? {}), ...(plan.mcp?.servers ?? {}) };
}

/** `K=V` pairs (--env, --header) as a record; a pair without `=` or with an empty key is bad input naming the option. */
export function parsePairs(pairs: readonly string[], option: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ValidationError(option, `"${pair}" is not KEY=VALUE`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** Adds (or replaces) a server in settings.json; the name and the entry are checked first. */
export function addMcpServer(settings: SettingsStore, name: string, input: unknown): McpServer {
  parseOrThrow(McpServerNameSchema, name, 'name');
  const server = parseOrThrow(McpServerSchema, input, `mcp.servers.${name}`);
  const current = settings.read();
  settings.write({ ...current, mcp: { servers: { ...(current.mcp?.servers ?? {}), [name]: server } } });
  return server;
}

export function removeMcpServer(settings: SettingsStore, name: string): void {
  const current = settings.read();
  const servers = { ...(current.mcp?.servers ?? {}) };
  if (!(name in servers)) {
    const known = Object.keys(servers);
    throw new ValidationError('name', `no MCP server "${name}"; ${known.length > 0 ? `the servers are ${known.join(', ')}` : 'none is configured'}`);
  }
  delete servers[name];
  settings.write({ ...current, mcp: { servers } });
}

/** One server as `agents mcp list` shows it: whether it started (in an empty sandbox, confined), and its tools. */
export interface McpServerCheck {
  name: string;
  server: McpServer;
  ok: boolean;
  error: string | null;
  tools: McpToolListing[];
  /** The protocol revision it speaks; null when it did not start. */
  protocolVersion: string | null;
}

/** Starts each configured server once in a throwaway folder, confined as a run would, lists its tools, and stops it. */
export async function checkMcpServers(
  servers: Readonly<Record<string, McpServer>>,
  profile: Pick<AutomationProfile, 'allowNetwork' | 'allowUnconfinedShell'> = { allowNetwork: false, allowUnconfinedShell: false },
  auth?: ConnectOptions['auth'],
): Promise<McpServerCheck[]> {
  // The MCP client is loaded by the commands that start a server, not by every one that edits settings.
  const { connectMcpServer } = await import('../engine/mcp/mcp-servers');
  const checks: McpServerCheck[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const sandboxRoot = mkdtempSync(path.join(tmpdir(), 'agents-mcp-check-'));
    try {
      const connected = await connectMcpServer(name, server, { sandboxRoot, profile, auth });
      checks.push({ name, server, ok: true, error: null, tools: connected.tools, protocolVersion: connected.protocolVersion });
      await connected.close();
    } catch (error) {
      checks.push({ name, server, ok: false, error: error instanceof Error ? error.message : String(error), tools: [], protocolVersion: null });
    } finally {
      rmSync(sandboxRoot, { recursive: true, force: true });
    }
  }
  return checks;
}

/** What `agents mcp call` answers: the server's result as the protocol has it, and the revision spoken. */
export type McpCallOutcome =
  | { ok: true; name: string; tool: string; protocolVersion: string | null; result: CallToolResult }
  /** The server did not start, or the call failed (a timeout, a dropped connection): its message and the hint naming the server. */
  | { ok: false; name: string; tool: string; error: string; hint: string | null };

export interface McpCallOptions {
  args: Record<string, unknown>;
  timeoutMs?: number;
  profile?: Pick<AutomationProfile, 'allowNetwork' | 'allowUnconfinedShell'>;
  onProgress?: (progress: McpProgress) => void;
  onLog?: ConnectOptions['onLog'];
  elicit?: ConnectOptions['elicit'];
  auth?: ConnectOptions['auth'];
}

/**
 * Calls one tool of a configured server, as an operator tries it before a plan uses it: the server
 * starts as `agents mcp list` starts it (confined, in an empty folder), and stops after the call. A
 * call that reports progress is not cut off by its time limit while progress keeps coming.
 */
export async function callMcpTool(servers: Readonly<Record<string, McpServer>>, name: string, tool: string, options: McpCallOptions): Promise<McpCallOutcome> {
  const server = servers[name];
  if (server === undefined) {
    const known = Object.keys(servers);
    throw new ValidationError('name', `no MCP server "${name}"; ${known.length > 0 ? `the servers are ${known.join(', ')}` : 'none is configured (agents mcp add NAME ...)'}`);
  }
  const { connectMcpServer, callConnectedTool } = await import('../engine/mcp/mcp-servers');
  const sandboxRoot = mkdtempSync(path.join(tmpdir(), 'agents-mcp-call-'));
  try {
    const profile = options.profile ?? { allowNetwork: false, allowUnconfinedShell: false };
    const connected = await connectMcpServer(name, server, { sandboxRoot, profile, elicit: options.elicit, onLog: options.onLog, auth: options.auth });
    try {
      if (!connected.tools.some((t) => t.name === tool)) {
        const names = connected.tools.map((t) => t.name);
        throw new ValidationError('tool', `the MCP server "${name}" has no tool "${tool}"; ${names.length > 0 ? `its tools are ${names.join(', ')}` : 'it lists none'}`);
      }
      const result = await callConnectedTool(connected, tool, options.args, { timeoutMs: server.timeoutMs ?? options.timeoutMs, onProgress: options.onProgress });
      return { ok: true, name, tool, protocolVersion: connected.protocolVersion, result };
    } finally {
      await connected.close();
    }
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return { ok: false, name, tool, error: error.message, hint: typeof error.details.hint === 'string' ? error.details.hint : null };
  } finally {
    rmSync(sandboxRoot, { recursive: true, force: true });
  }
}
