import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { agents, sandboxWorkspace } from '../cli/cli-harness';
import { type AgentCall, agentSteps } from './acp-agents';
import type { ScriptedModelServer } from './scripted-model-server';

export interface SmokeResult {
  home: string;
  id: string;
  tree: { invocations: { id: string; tool: string; ok: boolean }[] };
  entries: { path: string; operation: string; invocationId: string | null }[];
}

/**
 * A coding agent's smoke test through the CLI: `agents acp add` with `add`, a one-step plan under
 * the trusted profile whose step makes `call` against `server`, run to its end; the plan's tree
 * and changeset come back to be checked.
 */
export async function oneStepPlan(server: ScriptedModelServer, add: string[], name: string, call: AgentCall, env: Record<string, string> = {}): Promise<SmokeResult> {
  const { home, examples } = sandboxWorkspace();
  const added = await agents(add, home, env);
  expect(added.code, added.stderr).toBe(0);
  server.respondWith(agentSteps({ notes: [call] }));
  const project = join(examples, 'acp-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `acp-${name}.yaml`);
  writeFileSync(file, `name: Notes by ${name}\nproject: ./acp-project\nautomationProfile: trusted\nagent: { acp: ${name} }\ndefinitionOfDone:\n  - Write NOTES.md (notes)\n`);
  const created = await agents(['plan', 'create', file], home, env);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  const run = await agents(['plan', 'run', id], home, env);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const tree = JSON.parse((await agents(['plan', 'tree', id, '--json'], home, env)).stdout) as SmokeResult['tree'];
  const entries = (JSON.parse((await agents(['plan', 'diff', id, '--json'], home, env)).stdout) as { entries: SmokeResult['entries'] }).entries;
  return { home, id, tree, entries };
}
