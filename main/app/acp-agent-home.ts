import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AcpSettings, BuiltinAcpAgent } from '../../shared/acp';
import { isBuiltinAgent } from './acp-agents';

/**
 * Settings a built-in agent reads from its home that the console needs on: Qwen Code keeps a todo
 * list (its `plan` updates: a step's sub-tasks, a proposal's steps) only where its settings say so.
 */
const HOME_SETTINGS: Partial<Record<BuiltinAcpAgent, { file: string; settings: Record<string, unknown> }>> = {
  qwen: { file: path.join('.qwen', 'settings.json'), settings: { tools: { todoWrite: { enabled: true } } } },
};

/** Writes a built-in agent's settings into its home for the plan, once: what is there already (the agent's own) stays. */
export function prepareAgentHome(agentName: string, settings: AcpSettings, home: string): void {
  // An agent the operator added under a built-in's name is theirs to set up.
  if (settings.agents[agentName] || !isBuiltinAgent(agentName)) return;
  const wanted = HOME_SETTINGS[agentName];
  if (!wanted) return;
  const file = path.join(home, wanted.file);
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(wanted.settings, null, 2)}\n`, { mode: 0o600 });
}
