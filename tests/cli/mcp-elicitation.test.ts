// A plan's MCP server asks the operator a question mid-call (elicitation): the reference
// "everything" server's trigger-elicitation-request, called by a scripted model. The plan stops
// (exit 3) with the question; `plan approve --input` answers it (checked against the question,
// its defaults filling the rest), `plan reject` declines it, and the call runs again with the answer.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Approval, ApprovalSchema } from '../../shared/approvals';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { type ChatRequest, type ScriptedReply, ScriptedModelServer } from '../support/scripted-model-server';
import { agents, agentsJson, BIN, ROOT, sandboxWorkspace } from './cli-harness';

const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');
const PROBE = join(ROOT, 'tests/support/mcp-probe-server.mjs');
const server = new ScriptedModelServer();
let env: Record<string, string>;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
});

/** One step: the call that asks, then finish. */
function agent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Ask the operator', rationale: 'asked', acceptance: 'answered' }] } }] };
  if (toolResults(request) === 0) return { toolCalls: [{ name: 'everything_trigger-elicitation-request', args: {} }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
}

async function planWith(profile: string): Promise<{ home: string; id: string }> {
  const { home, examples } = sandboxWorkspace();
  const file = join(examples, 'elicit.yaml');
  writeFileSync(file, `name: elicit\nproject: ./demo-project\nagent: true\nautomationProfile: ${profile}\ndefinitionOfDone: |\n  - It asked\nmcp:\n  servers:\n    everything: { command: ${JSON.stringify(EVERYTHING)}, args: [] }\n`);
  server.respondWith(agent);
  const created = await agents(['plan', 'create', file], home, env);
  expect(created.code, created.stderr).toBe(0);
  return { home, id: created.stdout.trim() };
}

const pendingOf = async (home: string, id: string) => ApprovalSchema.nullable().parse((await agentsJson<{ pending: Approval | null }>(['plan', 'approvals', id], home)).pending);

/** What the server's tool answered, as the model was told it. */
const lastToolResult = () => String(server.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);

describe("an MCP server's question during a plan", () => {
  it('stops the run with the question, refuses an answer that does not fit it, and runs the call again with the answer', { timeout: 240_000 }, async () => {
    const { home, id } = await planWith('{ base: trusted, allow: ["everything.*"] }');
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
    // The model's proposed step is approved first; the run then stops at the server's question.
    expect((await pendingOf(home, id))?.kind).toBe('plan');
    const run = await agents(['plan', 'approve', id], home, env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('the MCP server "everything" asks: Please provide inputs for the following fields:');
    expect(run.stderr).toMatch(/^ {2}name \(String\): string, required — Your full, legal name$/m);
    expect(run.stderr).toMatch(/^ {2}integer \(Integer\): integer, 1 to 100, default 42/m);
    expect(run.stderr).toContain(`answer with: agents plan approve ${id} --input '{...}'`);
    const pending = await pendingOf(home, id);
    expect(pending).toMatchObject({ kind: 'input', tool: 'everything.trigger-elicitation-request', elicitation: { server: 'everything' } });

    // A value of the wrong type, a field not asked for, a required one missing: one line each, nothing recorded.
    const wrong = await agents(['plan', 'approve', id, '--input', '{"name": 5}'], home, env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('error: input: "name" must be text; nothing was recorded\n');
    const unknown = await agents(['plan', 'approve', id, '--input', '{"name": "Ada", "color": "red"}'], home, env);
    expect(unknown.stderr).toMatch(/^error: input: "color" is not asked for; the fields are name, check, firstLine/);
    const missing = await agents(['plan', 'approve', id], home, env);
    expect(missing.stderr).toBe('error: input: "name" is required (String); nothing was recorded\n');
    expect((await pendingOf(home, id))?.id).toBe(pending?.id);

    const answered = await agents(['plan', 'approve', id, '--input', '{"name": "Ada", "integer": 7}'], home, env);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toContain('elicit: Ready to apply');
    const result = lastToolResult();
    expect(result).toContain('User provided the requested information');
    expect(result).toContain('- Name: Ada');
    expect(result).toContain('- Favorite Integer: 7');
    // Left out of --input, filled in from the question's defaults (SEP-1034).
    expect(result).toContain('- Favorite Number: 3.14');
    const approvals = await agentsJson<{ approvals: Approval[] }>(['plan', 'approvals', id], home);
    expect(approvals.approvals.find((a) => a.kind === 'input')).toMatchObject({ status: 'approved', args: { name: 'Ada', integer: 7, number: 3.14 } });
  });

  it('under supervised asks for the call first, then its question; rejecting declines and the step goes on', { timeout: 240_000 }, async () => {
    const { home, id } = await planWith('supervised');
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
    expect((await pendingOf(home, id))?.kind).toBe('plan');
    const first = await agents(['plan', 'approve', id], home, env);
    expect(first.code, first.stderr).toBe(3);
    expect((await pendingOf(home, id))?.kind).toBe('tool');
    const approved = await agents(['plan', 'approve', id], home, env);
    expect(approved.code, approved.stderr).toBe(3);
    expect((await pendingOf(home, id))?.kind).toBe('input');
    // The call, approved once, is not asked about again when it runs with the answer.
    const declined = await agents(['plan', 'reject', id, '--reason', 'not now'], home, env);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stderr).toContain('elicit: Ready to apply');
    expect(lastToolResult()).toContain('User declined to provide the requested information');
  });

  it('on a terminal, plan run asks the question field by field and goes on with the answer', { timeout: 240_000 }, async () => {
    const { home, id } = await planWith('{ base: trusted, allow: ["everything.*"] }');
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    // script(1) gives the command a real terminal.
    const child = spawn('script', ['-qec', `${quote(process.execPath)} ${quote(BIN)} plan run ${id}`, '/dev/null'], { env: { ...process.env, AGENTS_HOME: home, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const said = new Set<string>();
    const answer = (prompt: string, keys: string) => {
      if (said.has(prompt) || !output.includes(prompt)) return;
      said.add(prompt);
      setTimeout(() => child.stdin.write(keys), 300);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      answer('approve the proposed tree? [y]es', 'y');
      answer('answer? [y]es (fill in the fields)', 'y');
      // The name first (required), then Enter for every other field: their defaults.
      answer('String (Your full, legal name) [string, required]: ', `Ada\r${'\r'.repeat(12)}`);
    });
    const timer = setTimeout(() => child.kill(), 150_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code, output).toBe(0);
    expect(output).toContain('the MCP server "everything" asks: Please provide inputs');
    expect(output).toContain('elicit: Ready to apply');
    expect(lastToolResult()).toContain('- Name: Ada');
    expect(lastToolResult()).toContain('- Favorite Integer: 42');
  });

  it('agents mcp call asks the same way on a terminal', { timeout: 120_000 }, async () => {
    const { home } = sandboxWorkspace();
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mcp: { servers: { everything: { command: EVERYTHING, args: [], env: {} } } } }), { mode: 0o600 });
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const child = spawn('script', ['-qec', `${quote(process.execPath)} ${quote(BIN)} mcp call everything trigger-elicitation-request`, '/dev/null'], { env: { ...process.env, AGENTS_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const said = new Set<string>();
    const answer = (prompt: string, keys: string) => {
      if (said.has(prompt) || !output.includes(prompt)) return;
      said.add(prompt);
      setTimeout(() => child.stdin.write(keys), 300);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      answer('answer? [y]es, [n]o (decline), [c]ancel: ', 'y\r');
      // A name, then a number out of range (asked again, with why), then Enter for the rest: their defaults.
      answer('String (Your full, legal name) [string, required]: ', 'Ada\r');
      answer('[integer, 1 to 100, default 42]: ', '500\r');
      answer('"integer" must be from 1 to 100', '9\r');
      answer('[number, 0 to 1000, default 3.14]: ', '\r'.repeat(6));
      answer('[yes or no]: ', '\r');
      answer('[string, default It was a dark and stormy night.]: ', '\r\r\r\r');
    });
    const timer = setTimeout(() => child.kill(), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^ {2}name \(String\): string, required/m);
    expect(output).toContain('- Name: Ada');
    expect(output).toContain('- Favorite Integer: 9');
    expect(output).toContain('- Favorite Number: 3.14');
  });

  it('plan approvals prints the question waiting and, once cancelled with plan reject --cancel, the answer; the server hears cancel', { timeout: 240_000 }, async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'ask.yaml');
    writeFileSync(file, `name: ask\nproject: ./demo-project\nagent: true\nautomationProfile: { base: trusted, allow: ["probe.*"] }\ndefinitionOfDone: |\n  - It asked\nmcp:\n  servers:\n    probe: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(PROBE)}], questionTimeoutMs: 3600000 }\n`);
    server.respondWith((request) => {
      if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Ask the operator', rationale: 'asked', acceptance: 'answered' }] } }] };
      if (toolResults(request) === 0) return { toolCalls: [{ name: 'probe_write-then-ask', args: { path: 'before.txt' } }] };
      return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
    });
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
    const stopped = await agents(['plan', 'approve', id], home, env);
    expect(stopped.code, stopped.stderr).toBe(3);
    expect(stopped.stderr).toContain(`cancel with:  agents plan reject ${id} --cancel\n`);
    const pending = await pendingOf(home, id);
    const waiting = await agents(['plan', 'approvals', id], home, env);
    expect(waiting.code, waiting.stderr).toBe(0);
    expect(waiting.stdout.split('\n')).toEqual([
        'Waiting for approval:',
        'the MCP server "probe" asks: What goes in answer.txt?',
        '  text (Text): string, required',
        '  (during probe.write-then-ask in step "Ask the operator")',
        `  unanswered, it is cancelled at ${pending?.expiresAt}`,
        '',
        'Answered:',
        expect.stringMatching(/^ {2}\S+ {2}approved {2}the proposed tree {2}by \S+$/),
        '',
      ]);
    const cancelled = await agents(['plan', 'reject', id, '--cancel'], home, env);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(lastToolResult()).toBe("the operator's answer: cancel");
    const answered = await agents(['plan', 'approvals', id], home, env);
    expect(answered.stdout).toMatch(/^Nothing waits for approval\.\n\nAnswered:\n {2}\S+ {2}approved {2}the proposed tree {2}by \S+\n {2}\S+ {2}cancelled {2}answer to probe's question {2}by \S+\n$/);
  });
});
