import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type AcpAgent,
  AcpAgentNameSchema,
  AcpAgentSchema,
  type AcpPlanAgent,
  type AcpSettings,
  BUILTIN_ACP_AGENTS,
  type BuiltinAcpAgent,
  type AcpAgentFile,
} from '../../shared/acp';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import type { SettingsStore } from './settings';

/**
 * How each built-in agent starts (TOOLCHAIN.md, "Coding agents over the Agent Client Protocol"):
 * the program its npm package installs, the arguments that make it speak ACP, the switches that
 * keep it offline and quiet, the variables of the operator's environment it reads its provider
 * from, and its provider's API host.
 */
export const BUILTIN_AGENTS: Record<BuiltinAcpAgent, { program: string; args: string[]; env: Record<string, string>; passEnv: string[]; allowHosts: string[]; install: string }> = {
  claude: {
    program: 'claude-agent-acp',
    args: [],
    // Its task tools on for every model: its tasks are a step's sub-tasks, and a proposal's steps.
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' },
    passEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL', 'ANTHROPIC_SMALL_FAST_MODEL', 'CLAUDE_CODE_OAUTH_TOKEN'],
    allowHosts: ['api.anthropic.com:443'],
    install: 'npm install -g @agentclientprotocol/claude-agent-acp',
  },
  qwen: {
    program: 'qwen',
    args: ['--acp'],
    env: { QWEN_USAGE_STATISTICS_ENABLED: 'false' },
    passEnv: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'DASHSCOPE_API_KEY'],
    allowHosts: [],
    install: 'npm install -g @qwen-code/qwen-code',
  },
  opencode: {
    program: 'opencode',
    args: ['acp'],
    env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_PERMISSION: '{"edit":"ask","bash":"ask"}' },
    passEnv: ['OPENCODE_CONFIG_CONTENT', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY'],
    allowHosts: [],
    install: 'npm install -g opencode-ai',
  },
  gemini: {
    program: 'gemini',
    args: ['--acp'],
    env: {},
    passEnv: ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_MODEL', 'GOOGLE_API_KEY'],
    allowHosts: ['generativelanguage.googleapis.com:443'],
    install: 'npm install -g @google/gemini-cli',
  },
  codex: {
    program: 'codex-acp',
    args: [],
    env: {},
    passEnv: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
    allowHosts: ['api.openai.com:443'],
    install: 'npm install -g @agentclientprotocol/codex-acp @openai/codex',
  },
};

export function isBuiltinAgent(name: string): name is BuiltinAcpAgent {
  return (BUILTIN_ACP_AGENTS as readonly string[]).includes(name);
}

/** The operator's agents and where the built-in ones are looked for. */
export function acpSettingsOf(settings: SettingsStore): AcpSettings {
  return settings.read().acp ?? { agents: {} };
}

/** Adds (or replaces) an agent in settings.json; the name and the entry are checked first. */
export function addAcpAgent(settings: SettingsStore, name: string, input: unknown): AcpAgent {
  parseOrThrow(AcpAgentNameSchema, name, 'name');
  const agent = parseOrThrow(AcpAgentSchema, input, `acp.agents.${name}`);
  const current = settings.read();
  const acp = current.acp ?? { agents: {} };
  settings.write({ ...current, acp: { ...acp, agents: { ...acp.agents, [name]: agent } } });
  return agent;
}

export function removeAcpAgent(settings: SettingsStore, name: string): void {
  const current = settings.read();
  const acp = current.acp ?? { agents: {} };
  if (!(name in acp.agents)) {
    const known = Object.keys(acp.agents);
    throw new ValidationError('name', `no agent "${name}" was added; ${known.length > 0 ? `the added agents are ${known.join(', ')}` : 'none was added'}${isBuiltinAgent(name) ? ` (${name} is built in and cannot be removed)` : ''}`);
  }
  const agents = { ...acp.agents };
  delete agents[name];
  settings.write({ ...current, acp: { ...acp, agents } });
}

/** A program found in `folder` (the settings') or on PATH, as an absolute path; null where neither has it. */
export function findProgram(program: string, folder: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const dirs = [...(folder ? [folder] : []), ...(env.PATH ?? '').split(path.delimiter).filter(Boolean)];
  for (const dir of dirs) {
    const candidate = path.resolve(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** An agent ready to start: the command, and its whole environment but HOME (the run gives it its own). */
export interface AcpLaunch {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  allowHosts: string[];
}

/** Variables every agent gets from the operator's environment: where its programs and language are. */
const BASE_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

function baseEnv(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] !== undefined && env[name] !== '' ? [[name, env[name] as string]] : [])));
}

/** The names an agent may be given: the operator's, then the built-in ones. */
export function knownAgentNames(settings: AcpSettings): string[] {
  return [...new Set([...Object.keys(settings.agents), ...BUILTIN_ACP_AGENTS])];
}

/** A built-in agent's launch, or a one-line error saying how to install it. */
function builtinLaunch(name: BuiltinAcpAgent, settings: AcpSettings, env: NodeJS.ProcessEnv): AcpLaunch {
  const builtin = BUILTIN_AGENTS[name];
  const command = findProgram(builtin.program, settings.folder, env);
  if (!command) {
    throw new ValidationError('agent.acp', `the ${name} agent is not installed: ${builtin.program} is not on PATH${settings.folder ? ` nor in ${settings.folder}` : ''} (install it with ${builtin.install}, or set acp.folder in the settings)`);
  }
  return { name, command, args: builtin.args, env: { ...baseEnv(env, [...BASE_ENV, ...builtin.passEnv]), ...builtin.env }, allowHosts: builtin.allowHosts };
}

/** The agent a name stands for: one the operator added (which wins over a built-in of the same name), else a built-in. */
export function resolveAgentName(name: string, settings: AcpSettings, env: NodeJS.ProcessEnv): AcpLaunch {
  const added = settings.agents[name];
  if (added) return { name, command: added.command, args: added.args, env: { ...baseEnv(env, BASE_ENV), ...added.env }, allowHosts: added.allowHosts };
  if (isBuiltinAgent(name)) return builtinLaunch(name, settings, env);
  throw new ValidationError('agent.acp', `unknown agent "${name}"; the agents are ${knownAgentNames(settings).join(', ')}`);
}

/** The agent a plan file names, or spells out (`inline`). */
export function resolveAgentFile(file: AcpAgentFile, settings: AcpSettings, env: NodeJS.ProcessEnv): AcpLaunch {
  if (typeof file.acp === 'string') return resolveAgentName(file.acp, settings, env);
  const { command, args, env: own, allowHosts } = file.acp;
  return { name: 'inline', command, args, env: { ...baseEnv(env, BASE_ENV), ...own }, allowHosts };
}

/** The agent a plan recorded, as this process starts it: a named one with this machine's settings, an inline one as the plan keeps it. */
export function resolvePlanAgent(agent: AcpPlanAgent, settings: AcpSettings, env: NodeJS.ProcessEnv): AcpLaunch {
  if (agent.env) return { name: agent.name, command: agent.command, args: agent.args, env: { ...baseEnv(env, BASE_ENV), ...agent.env }, allowHosts: agent.allowHosts };
  try {
    return resolveAgentName(agent.name, settings, env);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError('agent.acp', `this plan runs the agent "${agent.name}", which this machine does not have: ${error.message}`);
    throw error;
  }
}

/** What a plan keeps of the agent its file names: enough for any process to start the same one (an inline agent's environment with it; a named one's stays in the settings). */
export function planAgentOf(file: AcpAgentFile, settings: AcpSettings, env: NodeJS.ProcessEnv): AcpPlanAgent {
  const launch = resolveAgentFile(file, settings, env);
  return {
    name: launch.name,
    command: launch.command,
    args: launch.args,
    ...(typeof file.acp === 'string' ? {} : { env: file.acp.env }),
    allowHosts: launch.allowHosts,
    version: null,
    ...(file.turnTimeoutSeconds ? { turnTimeoutSeconds: file.turnTimeoutSeconds } : {}),
    ...(file.maxOutputTokens ? { maxOutputTokens: file.maxOutputTokens } : {}),
    ...(file.maxCostUsd ? { maxCostUsd: file.maxCostUsd } : {}),
    ...(file.propose ? { propose: true } : {}),
  };
}

/** One agent as `agents acp list` shows it: whether it starts, and what its `initialize` and `session/new` say. */
export interface AcpAgentCheck {
  name: string;
  builtin: boolean;
  /** The operator's entry (its environment's values hidden when shown), or the built-in's command where it is installed. */
  command: string | null;
  args: string[];
  env: string[];
  installed: boolean;
  ok: boolean;
  error: string | null;
  version: string | null;
  modes: string[];
}

/** Starts each agent once in a throwaway folder with a throwaway home, initializes it, opens a session for its modes, and ends it. */
export async function checkAcpAgents(settings: AcpSettings, env: NodeJS.ProcessEnv, startTimeoutMs = settings.startTimeoutSeconds ? settings.startTimeoutSeconds * 1000 : undefined): Promise<AcpAgentCheck[]> {
  // The ACP client is loaded by the commands that start an agent, not by every one that edits settings.
  const { AcpConnection } = await import('../engine/acp/acp-connection');
  const checks: AcpAgentCheck[] = [];
  for (const name of knownAgentNames(settings)) {
    const builtin = !(name in settings.agents);
    let launch: AcpLaunch;
    try {
      launch = resolveAgentName(name, settings, env);
    } catch (error) {
      checks.push({ name, builtin, command: null, args: [], env: [], installed: false, ok: false, error: error instanceof Error ? error.message : String(error), version: null, modes: [] });
      continue;
    }
    const base = { name, builtin, command: launch.command, args: launch.args, env: Object.keys(settings.agents[name]?.env ?? {}), installed: true };
    const root = mkdtempSync(path.join(tmpdir(), 'agents-acp-check-'));
    try {
      const sandboxRoot = path.join(root, 'project');
      mkdirSync(sandboxRoot);
      const connection = await AcpConnection.start(launch, { file: launch.command, args: launch.args, env: launch.env, sandboxRoot, home: path.join(root, 'home'), readOnlyPaths: [], allowHosts: launch.allowHosts, allowNetwork: false }, startTimeoutMs);
      try {
        const session = await connection.newSession(sandboxRoot);
        checks.push({ ...base, ok: true, error: null, version: connection.version, modes: session.modes?.availableModes.map((m) => m.id) ?? [] });
      } finally {
        await connection.close();
      }
    } catch (error) {
      checks.push({ ...base, ok: false, error: error instanceof Error ? error.message : String(error), version: null, modes: [] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return checks;
}
