// Gemini CLI, opencode and Codex as a plan's agent: a one-step plan each, against the scripted
// model on 127.0.0.1 (each in the wire API it speaks), its write captured in the changeset.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { geminiAddArgs, testAgentsInstalled } from '../support/acp-agents';
import { oneStepPlan } from '../support/acp-smoke';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents } from '../cli/cli-harness';

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 240_000 };

describe.skipIf(!testAgentsInstalled)('Gemini CLI as a plan\'s agent', () => {
  it('runs a one-step plan against the scripted model; its write goes through the client and is captured', LONG, async () => {
    const { home, id, tree, entries } = await oneStepPlan(server, geminiAddArgs('gemini-test', server), 'gemini-test', (dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } }));
    const notes = entries.find((e) => e.path === 'NOTES.md');
    expect(notes?.operation).toBe('create');
    expect(tree.invocations.find((i) => i.id === notes?.invocationId)?.tool).toBe('file.write');
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
    const show = await agents(['plan', 'show', id], home);
    expect(show.stdout).toMatch(/agent: +gemini-test \(/);
    // Its tokens, from its prompt response's _meta.quota, count toward the plan's usage.
    const shown = JSON.parse((await agents(['plan', 'show', id, '--json'], home)).stdout) as { usage?: { inputTokens: number; outputTokens: number } };
    expect(shown.usage?.inputTokens).toBeGreaterThan(0);
    expect(shown.usage?.outputTokens).toBeGreaterThan(0);
  });
});
