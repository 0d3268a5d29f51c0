// Gemini CLI, opencode and Codex as a plan's agent: a one-step plan each, against the scripted
// model on 127.0.0.1 (each in the wire API it speaks), its write captured in the changeset.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentSteps, type AgentCall, geminiAddArgs, testAgentsInstalled } from '../support/acp-agents';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from '../cli/cli-harness';

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 240_000 };

interface Tree {
  invocations: { id: string; tool: string; ok: boolean }[];
}

/** Adds the agent, runs a one-step plan whose step makes `call`, and returns the plan's tree and diff. */
async function oneStep(add: string[], name: string, call: AgentCall): Promise<{ home: string; id: string; tree: Tree; entries: { path: string; operation: string; invocationId: string | null }[] }> {
  const { home, examples } = sandboxWorkspace();
  const added = await agents(add, home);
  expect(added.code, added.stderr).toBe(0);
  server.respondWith(agentSteps({ notes: [call] }));
  const project = join(examples, 'acp-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `acp-${name}.yaml`);
  writeFileSync(file, `name: Notes by ${name}\nproject: ./acp-project\nautomationProfile: trusted\nagent: { acp: ${name} }\ndefinitionOfDone:\n  - Write NOTES.md (notes)\n`);
  const created = await agents(['plan', 'create', file], home);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  const run = await agents(['plan', 'run', id], home);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const tree = JSON.parse((await agents(['plan', 'tree', id, '--json'], home)).stdout) as Tree;
  const entries = (JSON.parse((await agents(['plan', 'diff', id, '--json'], home)).stdout) as { entries: { path: string; operation: string; invocationId: string | null }[] }).entries;
  return { home, id, tree, entries };
}

describe.skipIf(!testAgentsInstalled)('Gemini CLI as a plan\'s agent', () => {
  it('runs a one-step plan against the scripted model; its write goes through the client and is captured', LONG, async () => {
    const { home, id, tree, entries } = await oneStep(geminiAddArgs('gemini-test', server), 'gemini-test', (dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } }));
    const notes = entries.find((e) => e.path === 'NOTES.md');
    expect(notes?.operation).toBe('create');
    expect(tree.invocations.find((i) => i.id === notes?.invocationId)?.tool).toBe('file.write');
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
    const show = await agents(['plan', 'show', id], home);
    expect(show.stdout).toMatch(/agent: +gemini-test \(/);
  });
});
