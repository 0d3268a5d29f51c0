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

/** An agent plan with at most 3 turns per step (or the budgets `agent`), over a fresh project. */
function plan(agent = '{ maxTurnsPerStep: 3 }'): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-budget-'));
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'README.md'), '# Project\n');
  writeFileSync(join(dir, 'plan.yaml'), `name: notes\nproject: ./project\nagent: ${agent}\ndefinitionOfDone: |\n  - NOTES.md says hello\n`);
  return join(dir, 'plan.yaml');
}

/** A model that lists the files `listings` times before it writes NOTES.md and finishes; each step turn reports `output` tokens. */
function slowModel(listings: number, output = 5) {
  const good = fileWritingAgent({ 'NOTES.md': 'hello\n' });
  const usage = { input: 10, output };
  server.respondWith((request, index) => {
    if (isStrategize(request)) return good(request, index);
    const results = toolResults(request);
    if (results < listings) return { toolCalls: [{ name: 'file_list', args: {} }], usage };
    if (results === listings) return { toolCalls: [{ name: 'file_write', args: { path: 'NOTES.md', content: 'hello\n' } }], usage };
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md.' } }], usage };
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

/** The model settings, and a price of a cent an output token: strategize (80 out) costs $0.80, a step turn of 50 out $0.50. */
async function pricedCli() {
  const { agents } = inProcessCli();
  const settings = [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl], ['priceInput', '0'], ['priceOutput', '10000']];
  for (const [key, value] of settings) expect((await agents('config', 'set', key, value)).code).toBe(0);
  return agents;
}

/** A plan of maxCostUsd 2.5 whose step lists the files 6 times: strategize and 4 step turns cost $2.80, and it asks. */
async function overCost() {
  slowModel(6, 50);
  const agents = await pricedCli();
  const id = (await agents('plan', 'create', plan('{ maxCostUsd: 2.5 }'), '--profile', 'trusted')).stdout.trim();
  expect((await agents('plan', 'run', id)).code).toBe(3);
  const ran = await agents('plan', 'approve', id);
  expect(ran.code, ran.stderr).toBe(3);
  return { agents, id, ran };
}

describe("a plan's cost budget pauses and asks", () => {
  it('at maxCostUsd the run asks for more dollars; given them with --cost, the step goes on in the same conversation', LONG, async () => {
    const { agents, id, ran } = await overCost();
    expect(ran.stderr).toContain('The plan has cost $2.80 of its $2.50; allow $2.50 more?');
    expect(ran.stderr).toContain(`approve with: agents plan approve ${id} [--cost USD]`);
    const pending = JSON.parse((await agents('plan', 'approvals', id, '--json')).stdout).pending;
    expect(pending).toMatchObject({ kind: 'budget', status: 'pending', args: { limit: 'costUsd', used: 2.8, max: 2.5, more: 2.5 } });
    expect(server.requests.filter((r) => !isStrategize(r))).toHaveLength(4);

    // Another budget's flag, or an amount that is not one, is bad input and changes nothing.
    expect(await agents('plan', 'approve', id, '--turns', '5')).toMatchObject({ code: 2, stderr: 'error: --turns: does not apply: the plan reached its cost budget; use --cost\n' });
    expect(await agents('plan', 'approve', id, '--cost', 'lots')).toMatchObject({ code: 2, stderr: 'error: --cost: must be an amount of US dollars above 0, such as 1.50, not "lots"\n' });
    expect(JSON.parse((await agents('plan', 'approvals', id, '--json')).stdout).pending).toMatchObject({ id: pending.id, status: 'pending' });

    // $1.00 more is two more turns: then it asks again, at $3.80 of $3.50.
    const again = await agents('plan', 'approve', id, '--cost', '1');
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toContain('The plan has cost $3.80 of its $3.50; allow $2.50 more?');
    const approved = await agents('plan', 'approve', id, '--json');
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const steps = server.requests.filter((r) => !isStrategize(r));
    expect(steps.map(toolResults)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(steps.map((r) => JSON.stringify(r.messages[1]))).size).toBe(1);
    expect((await agents('plan', 'show', id)).stdout).toContain('4.8000');
    expect((await agents('plan', 'approvals', id)).stdout).toMatch(/approved {2}more for the plan {2}by /);
  });

  it('rejected, the step fails with category budget and the reason', LONG, async () => {
    const { agents, id } = await overCost();
    const rejected = await agents('plan', 'reject', id, '--reason', 'too dear', '--json');
    expect(rejected.code).toBe(1);
    const failed = JSON.parse(rejected.stdout);
    expect(failed).toMatchObject({ processingState: 'errored', errorDetails: { category: 'budget' } });
    expect(failed.errorMessage).toMatch(/^the plan has cost \$2\.80 of its \$2\.50; .* gave it no more: too dear$/);
  });

  it('without a price, a plan with maxCostUsd is refused when created, and when run once the price is cleared', LONG, async () => {
    const { agents } = inProcessCli();
    for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl]]) await agents('config', 'set', key, value);
    const refused = await agents('plan', 'create', plan('{ maxCostUsd: 2.5 }'));
    const line = "error: agent.maxCostUsd: the plan's cost budget of $2.50 cannot be checked without a price: run `agents config set priceInput N` and `agents config set priceOutput N` (US dollars per million tokens; the console: Settings)\n";
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: line });

    await agents('config', 'set', 'priceInput', '1');
    const id = (await agents('plan', 'create', plan('{ maxCostUsd: 2.5 }'))).stdout.trim();
    await agents('config', 'set', 'priceInput', '');
    expect(await agents('plan', 'run', id)).toMatchObject({ code: 2, stderr: line });
    expect(server.requests).toHaveLength(0);
  });
});

describe('a turn that would exceed the output tokens left', () => {
  it('is not sent cut short: the step asks for more first, and the next turn gets what was given', LONG, async () => {
    // 800 output tokens a turn of 2000: after two turns 400 are left, under a quarter of the budget.
    slowModel(2, 800);
    const { agents } = inProcessCli();
    for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl]]) await agents('config', 'set', key, value);
    const id = (await agents('plan', 'create', plan('{ maxOutputTokens: 2000 }'), '--profile', 'trusted')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(3);
    const ran = await agents('plan', 'approve', id);
    expect(ran.code, ran.stderr).toBe(3);
    expect(ran.stderr).toContain('Step "Write NOTES.md" has 400 of its 2000 output tokens left, too few for a turn; allow 2000 more?');
    expect(ran.stderr).toContain(`approve with: agents plan approve ${id} [--tokens N]`);
    const steps = () => server.requests.filter((r) => !isStrategize(r));
    expect(steps().map((r) => r.max_tokens)).toEqual([2000, 1200]);

    const approved = await agents('plan', 'approve', id, '--tokens', '1000');
    expect(approved.code, approved.stderr).toBe(0);
    // 400 left and 1000 more: the write gets 1400, then finish_step the 600 left (still above the minimum).
    expect(steps().map((r) => r.max_tokens)).toEqual([2000, 1200, 1400, 600]);
    expect(steps().map(toolResults)).toEqual([0, 1, 2, 3]);
  });
});
