import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AutomationProfile } from '../../shared/profiles';
import type { Plan } from '../../shared/domain';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { type McpServer, McpServerNameSchema, McpServerSchema } from '../../shared/mcp';
import type { McpToolListing } from '../engine/mcp/mcp-servers';
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
}

/** Starts each configured server once in a throwaway folder, confined as a run would, lists its tools, and stops it. */
export async function checkMcpServers(
  servers: Readonly<Record<string, McpServer>>,
  profile: Pick<AutomationProfile, 'allowNetwork' | 'allowUnconfinedShell'> = { allowNetwork: false, allowUnconfinedShell: false },
): Promise<McpServerCheck[]> {
  // The MCP client is loaded by the commands that start a server, not by every one that edits settings.
  const { connectMcpServer } = await import('../engine/mcp/mcp-servers');
  const checks: McpServerCheck[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const sandboxRoot = mkdtempSync(path.join(tmpdir(), 'agents-mcp-check-'));
    try {
      const connected = await connectMcpServer(name, server, { sandboxRoot, profile });
      checks.push({ name, server, ok: true, error: null, tools: connected.tools });
      await connected.close();
    } catch (error) {
      checks.push({ name, server, ok: false, error: error instanceof Error ? error.message : String(error), tools: [] });
    } finally {
      rmSync(sandboxRoot, { recursive: true, force: true });
    }
  }
  return checks;
}
