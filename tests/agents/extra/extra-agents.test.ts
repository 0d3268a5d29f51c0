// opencode and Codex (through its ACP adapter) as a plan's agent: a one-step plan each against the
// scripted model on 127.0.0.1, the file each writes by itself captured under its tool call. These
// two are 811 MB together, so only `npm run test:agents` installs and runs them (not `npm test`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codexAddArgs, extraAgentsInstalled, opencodeAddArgs } from '../../support/acp-agents';
import { oneStepPlan } from '../../support/acp-smoke';
import { ScriptedModelServer } from '../../support/scripted-model-server';

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 240_000 };

describe('the larger coding agents as a plan\'s agent', () => {
  it('needs them installed: npm run test:agents installs tests/agents/extra', () => {
    expect(extraAgentsInstalled).toBe(true);
  });

  it.runIf(extraAgentsInstalled)('opencode runs a one-step plan; the file its write tool makes by itself is captured under that call (named by its kind, edit)', LONG, async () => {
    const { home, id, tree, entries } = await oneStepPlan(server, opencodeAddArgs('opencode-test', server), 'opencode-test', (dir) => ({ name: 'write', args: { filePath: join(dir, 'NOTES.md'), content: '# Notes\n' } }));
    const notes = entries.find((e) => e.path === 'NOTES.md');
    expect(notes?.operation).toBe('create');
    expect(tree.invocations.find((i) => i.id === notes?.invocationId)?.tool).toBe('opencode-test.edit');
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  });

  it.runIf(extraAgentsInstalled)('Codex runs a one-step plan over OpenAI\'s Responses; its command asks to leave Codex\'s own sandbox, the profile answers through our gate, and the file it writes is captured under that call', LONG, async () => {
    // Codex's own shell sandbox cannot start inside ours (TOOLCHAIN.md): the command asks to run without it.
    const write = () => ({ name: 'exec_command', args: { cmd: "printf '# Notes\\n' > NOTES.md", sandbox_permissions: 'require_escalated', justification: 'Write NOTES.md' } });
    const { home, id, tree, entries } = await oneStepPlan(server, codexAddArgs('codex-test', server), 'codex-test', write);
    const notes = entries.find((e) => e.path === 'NOTES.md');
    expect(notes?.operation).toBe('create');
    expect(tree.invocations.find((i) => i.id === notes?.invocationId)?.tool).toBe('codex-test.execute');
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  });
});
