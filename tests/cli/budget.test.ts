import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inProcessCli } from '../../main/cli/test-support';
import { fileWritingAgent, isStrategize, toolResults } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { BIN } from './cli-harness';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 120_000 };

/** An agent plan with at most 3 turns per step, over a fresh project. */
function plan(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-budget-'));
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'README.md'), '# Project\n');
  writeFileSync(join(dir, 'plan.yaml'), 'name: notes\nproject: ./project\nagent: { maxTurnsPerStep: 3 }\ndefinitionOfDone: |\n  - NOTES.md says hello\n');
  return join(dir, 'plan.yaml');
}

/** A model that lists the files `listings` times before it writes NOTES.md and finishes. */
function slowModel(listings: number) {
  const good = fileWritingAgent({ 'NOTES.md': 'hello\n' });
  server.respondWith((request, index) => {
    if (isStrategize(request)) return good(request, index);
    const results = toolResults(request);
    if (results < listings) return { toolCalls: [{ name: 'file_list', args: {} }] };
    if (results === listings) return { toolCalls: [{ name: 'file_write', args: { path: 'NOTES.md', content: 'hello\n' } }] };
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md.' } }] };
  });
}

async function outOfTurns() {
  const { agents } = inProcessCli();
  for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl]]) expect((await agents('config', 'set', key, value)).code).toBe(0);
  const id = (await agents('plan', 'create', plan(), '--profile', 'trusted')).stdout.trim();
  // The proposed tree waits first; once approved, the step runs out of its 3 turns.
  expect((await agents('plan', 'run', id)).code).toBe(3);
  const ran = await agents('plan', 'approve', id);
  expect(ran.code, ran.stderr).toBe(3);
  return { agents, id, ran };
}

describe('a step that runs out of its budget pauses and asks', () => {
  it('allowed 5 more turns, it finishes in the same conversation', LONG, async () => {
    slowModel(6);
    const { agents, id, ran } = await outOfTurns();
    expect(ran.stderr).toContain('Step "Write NOTES.md" used its 3 turns; allow 3 more?');
    expect(ran.stderr).toContain(`approve with: agents plan approve ${id} [--turns N]`);
    const pending = JSON.parse((await agents('plan', 'approvals', id, '--json')).stdout).pending;
    expect(pending).toMatchObject({ kind: 'budget', status: 'pending', args: { limit: 'turns', used: 3, more: 3 } });

    // The other budget's flag is bad input, and changes nothing.
    expect(await agents('plan', 'approve', id, '--tokens', '500')).toMatchObject({ code: 2, stderr: 'error: --tokens: does not apply: the step ran out of turns; use --turns\n' });
    expect(JSON.parse((await agents('plan', 'approvals', id, '--json')).stdout).pending).toMatchObject({ id: pending.id, status: 'pending' });

    const approved = await agents('plan', 'approve', id, '--turns', '5', '--json');
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const steps = server.requests.filter((r) => !isStrategize(r));
    // 3 turns, then 5 more: six listings, the write and finish_step, in one conversation.
    expect(steps.map(toolResults)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(steps.map((r) => JSON.stringify(r.messages[1]))).size).toBe(1);
    expect((await agents('plan', 'diff', id)).stdout).toContain('CREATE NOTES.md');
    const usage = JSON.parse((await agents('plan', 'show', id, '--json')).stdout).usage.steps.find((s: { phase: string }) => s.phase === 'execute');
    expect(usage.turns).toBe(8);
    expect((await agents('plan', 'approvals', id)).stdout).toMatch(/approved {2}more for a step {2}by /);
  });

  it('rejected, the step fails with category budget and the reason', LONG, async () => {
    slowModel(6);
    const { agents, id } = await outOfTurns();
    const rejected = await agents('plan', 'reject', id, '--reason', 'it is looping', '--json');
    expect(rejected.code).toBe(1);
    const failed = JSON.parse(rejected.stdout);
    expect(failed).toMatchObject({ processingState: 'errored', errorDetails: { category: 'budget' } });
    expect(failed.errorMessage).toMatch(/used its 3 turns without finishing; .* gave it no more: it is looping$/);
  });

  it('under full-auto nobody is asked: the step fails as it ran out', LONG, async () => {
    slowModel(6);
    const { agents } = inProcessCli();
    for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl]]) await agents('config', 'set', key, value);
    const id = (await agents('plan', 'create', plan(), '--profile', 'full-auto')).stdout.trim();
    const run = await agents('plan', 'run', id, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ errorDetails: { category: 'budget' } });
  });

  it('on a terminal, agents plan run asks for more inline, and the step goes on', LONG, async () => {
    slowModel(4);
    const home = mkdtempSync(join(tmpdir(), 'agents-budget-home-'));
    const env = { ...process.env, AGENTS_HOME: home, AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
    const created = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'plan', 'create', plan(), '--profile', 'trusted'], { env });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', () => resolve(out.trim()));
    });
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    // script(1) gives the command a real terminal: the tree is approved, then the step is given more turns, a key each.
    const child = spawn('script', ['-qec', `${quote(process.execPath)} ${quote(BIN)} plan run ${created}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const asked: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const question of ['approve the proposed tree?', 'give the step more?']) {
        if (output.includes(question) && !asked.includes(question)) {
          asked.push(question);
          setTimeout(() => child.stdin.write('y'), 300);
        }
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(asked).toEqual(['approve the proposed tree?', 'give the step more?']);
    expect(output).toContain('Step "Write NOTES.md" used its 3 turns; allow 3 more?');
    expect(code, output).toBe(0);
    expect(output).toContain('notes: Ready to apply');
  });
});
