import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, agentsJson } from './cli-harness';

/** The environment that points a plan's model at the scripted server. */
export function scriptedModelEnv(server: ScriptedModelServer): Record<string, string> {
  return { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
}

/** `base/NAME.yaml`: a scripted plan over `project` whose definition of done is the given steps' lines. */
export function scriptedPlanFile(base: string, project: string, name: string, steps: string[][], profile = 'trusted'): string {
  const file = join(base, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, `project: ${JSON.stringify(project)}`, `automationProfile: ${profile}`, 'definitionOfDone:', ...steps.flat(), ''].join('\n'));
  return file;
}

/** `base/agent.yaml`: an agent plan under full-auto whose model writes A.md, B.md and C.md, one a step (fileWritingAgent). */
export function agentPlanFile(base: string, project: string): string {
  const file = join(base, 'agent.yaml');
  writeFileSync(file, ['name: agent', `project: ${JSON.stringify(project)}`, 'agent: true', 'automationProfile: full-auto', 'definitionOfDone: |', '  - A.md, B.md and C.md exist', ''].join('\n'));
  return file;
}

export async function createdPlan(home: string, file: string, env: Record<string, string> = {}): Promise<string> {
  const result = await agents(['plan', 'create', file], home, env);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** Creates and runs a plan to its end; returns what `plan show --json` shows of it. */
export async function ranPlan<T>(home: string, file: string, env: Record<string, string> = {}): Promise<T> {
  const id = await createdPlan(home, file, env);
  const run = await agents(['plan', 'run', id], home, env);
  expect(run.code, run.stderr).toBe(0);
  return agentsJson<T>(['plan', 'show', id], home);
}
