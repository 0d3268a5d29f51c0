import { z } from 'zod';
import { shownArgs } from './mcp';

/** An agent's name: `agent: { acp: NAME }` in a plan file, `agents acp add NAME`; its tools show as `NAME.TOOL`. */
export const ACP_AGENT_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** The agents the console knows how to start without being told (main/app/acp-agents.ts). */
export const BUILTIN_ACP_AGENTS = ['claude', 'qwen', 'opencode', 'gemini', 'codex'] as const;
export type BuiltinAcpAgent = (typeof BUILTIN_ACP_AGENTS)[number];

export const AcpAgentNameSchema = z
  .string()
  .regex(ACP_AGENT_NAME, 'must be a lowercase identifier (a letter, then letters, digits, _ or -; at most 40)')
  .refine((name) => !['file', 'shell'].includes(name), { message: "must not be file or shell (the built-in tools' names)" });

/** `HOST:PORT` an agent's process may reach, beside the addresses of the base URLs in its environment. */
export const AllowHostSchema = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'must be HOST:PORT');

/** How an agent is started: a command speaking ACP over stdio, its environment (secret values), and the hosts it may reach. */
export const AcpAgentSchema = z.lazy(() =>
  z
    .object({
      command: z.string().min(1, 'must not be empty'),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      allowHosts: z.array(AllowHostSchema).default([]),
    })
    .strict(),
);
export type AcpAgent = z.infer<typeof AcpAgentSchema>;

/** settings.json's `acp`: the operator's agents by name, and a folder where the built-in agents' commands are looked for before PATH. */
export const AcpSettingsSchema = z.lazy(() =>
  z
    .object({
      agents: z.record(z.string(), AcpAgentSchema).default({}),
      folder: z.string().optional(),
      /** How long an agent may take to start and answer initialize (default 60 s). */
      startTimeoutSeconds: z.number().int().min(1).max(600).optional(),
    })
    .strict(),
);
export type AcpSettings = z.infer<typeof AcpSettingsSchema>;

/** `agent: { acp: NAME }` or `agent: { acp: { command, args, env, allowHosts } }` in a plan file. */
export const AcpAgentFileSchema = z.lazy(() =>
  z
    .object({
      acp: z.union([AcpAgentNameSchema, AcpAgentSchema]),
      /** How long one step's turn may take before the agent is taken as hung (default 30 minutes). */
      turnTimeoutSeconds: z.number().int().min(1).max(86_400).optional(),
      /** Output tokens one step may use (as the agent reports them) before the run pauses and asks for more. */
      maxOutputTokens: z.number().int().min(16).max(10_000_000).optional(),
      /** US dollars the plan may cost, as the agent reports its cost in USD, before the run pauses and asks for more. */
      maxCostUsd: z.number().positive().max(1_000_000).optional(),
      /** The agent proposes the steps in a read-only turn (its plan mode), and they wait for the operator's approval. */
      propose: z.boolean().optional(),
    })
    .strict(),
);
export type AcpAgentFile = z.infer<typeof AcpAgentFileSchema>;

export function isAcpAgentFile(agent: unknown): agent is AcpAgentFile {
  return typeof agent === 'object' && agent !== null && 'acp' in agent;
}

/** What a plan keeps of its agent: every process that runs, approves or retries the plan starts this one. */
export const AcpPlanAgentSchema = z.lazy(() =>
  z.object({
    /** The name in the settings or a built-in's; `inline` for an agent the plan file spells out. */
    name: z.string(),
    command: z.string(),
    args: z.array(z.string()),
    /** Only an inline agent's environment is kept with the plan; a named one's is read from the settings when it runs. */
    env: z.record(z.string(), z.string()).optional(),
    allowHosts: z.array(z.string()).default([]),
    /** What the agent's `initialize` reported when the plan was made: `qwen-code 0.24.4`. */
    version: z.string().nullable(),
    turnTimeoutSeconds: z.number().int().positive().optional(),
    /** The plan file's budgets: a step's output tokens, the plan's cost in US dollars (absent: none). */
    maxOutputTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
    /** The agent proposes the steps (`propose: true` in the plan file). */
    propose: z.boolean().optional(),
  }),
);
export type AcpPlanAgent = z.infer<typeof AcpPlanAgentSchema>;

/** `node …/cli-entry.js --acp (env: OPENAI_API_KEY)`: an agent in one line, its secret values left out. */
export function describeAcpAgent(agent: Pick<AcpAgent, 'command' | 'args'> & { env?: Record<string, string>; allowHosts?: readonly string[] }): string {
  const env = Object.keys(agent.env ?? {});
  const hosts = agent.allowHosts ?? [];
  return `${[agent.command, ...shownArgs(agent.args)].join(' ')}${env.length > 0 ? ` (env: ${env.join(', ')})` : ''}${hosts.length > 0 ? ` (hosts: ${hosts.join(', ')})` : ''}`;
}

/** An agent as the CLI and the console show it: its environment's values hidden. */
export function shownAcpAgent<T extends { env?: Record<string, string>; args: string[] }>(agent: T): T {
  return { ...agent, args: shownArgs(agent.args), ...(agent.env ? { env: Object.fromEntries(Object.keys(agent.env).map((k) => [k, '(set)'])) } : {}) };
}

/** `qwen (qwen-code 0.24.4)`: the agent a plan runs, as `plan show` and the console's header name it. */
export function describePlanAgent(agent: AcpPlanAgent): string {
  return `${agent.name} (${agent.version ?? 'version known after its first run'}): ${describeAcpAgent({ command: agent.command, args: agent.args })}`;
}

/** One agent as the console's Settings lists it (what `agents acp list` checks): never an environment value. */
export const AcpAgentRowSchema = z.object({
  name: z.string(),
  builtin: z.boolean(),
  /** The command in one line, its environment's names only; null for a built-in that is not installed. */
  summary: z.string().nullable(),
  installed: z.boolean(),
  starts: z.boolean(),
  /** What its `initialize` reported: `qwen-code 0.24.4`. */
  version: z.string().nullable(),
  modes: z.array(z.string()),
  /** Why it does not start, or how to install a built-in. */
  problem: z.string().nullable(),
});
export type AcpAgentRow = z.infer<typeof AcpAgentRowSchema>;

export const AcpAgentsViewSchema = z.lazy(() => z.object({ agents: z.array(AcpAgentRowSchema) }));
export type AcpAgentsView = z.infer<typeof AcpAgentsViewSchema>;

/** An agent added from the console's Settings, as `agents acp add NAME --env K=V --allow-host H:P -- COMMAND` adds one. */
export const AcpAgentAddSchema = z.lazy(() =>
  z
    .object({
      name: z.string().min(1).max(40),
      commandLine: z.string().trim().min(1).max(4000),
      env: z.array(z.string().min(1).max(4000)).max(100).default([]),
      allowHosts: z.array(z.string().min(1).max(300)).max(100).default([]),
    })
    .strict(),
);
export type AcpAgentAdd = z.input<typeof AcpAgentAddSchema>;
