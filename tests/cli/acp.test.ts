import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentSteps, claudeAddArgs, qwenAddArgs, testAgentsInstalled } from '../support/acp-agents';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
/** A server on another port of this machine, which no agent may reach. */
const other = { port: 0, connections: 0, server: createServer((socket) => {
  other.connections += 1;
  socket.end();
}) };
// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md).
const env = { IS_SANDBOX: '' };

beforeAll(async () => {
  await server.start();
  await new Promise<void>((resolve) => other.server.listen(0, '127.0.0.1', resolve));
  other.port = (other.server.address() as AddressInfo).port;
});
afterAll(async () => {
  other.server.close();
  await server.close();
});
beforeEach(() => server.reset());

// Real agents start in seconds each, on a machine shared by many.
const LONG = { timeout: 240_000 };

/** A project folder and a plan file naming `agent` that runs `steps`, under `profile`. */
function planFor(examples: string, agent: string, steps: string[], profile = 'trusted'): string {
  const project = join(examples, 'acp-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `acp-${agent}.yaml`);
  writeFileSync(
    file,
    [`name: Notes by ${agent}`, 'project: ./acp-project', `automationProfile: ${profile}`, `agent: { acp: ${agent} }`, 'definitionOfDone:', ...steps.map((s) => `  - ${s}`), ''].join('\n'),
  );
  return file;
}

async function json<T>(args: string[], home: string): Promise<T> {
  const result = await agents([...args, '--json'], home, env);
  if (result.code !== 0) throw new Error(`agents ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

interface Tree {
  invocations: { id: string; tool: string; ok: boolean; decisionId: string }[];
}
interface DiffEntry {
  path: string;
  operation: string;
  invocationId: string | null;
}

describe.skipIf(!testAgentsInstalled)('a coding agent over the Agent Client Protocol as a plan\'s agent', () => {
  it('Qwen Code (writes through the client): its write goes through the tool runner as file.write, its shell command is captured under its call, a command reaching another port on this machine fails while its model calls succeed, and the plan applies', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const added = await agents(qwenAddArgs('qwen-test', server), home, env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('(env: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, QWEN_USAGE_STATISTICS_ENABLED)');
    expect(added.stdout).not.toContain('scripted');

    server.respondWith(
      agentSteps({
        notes: [(dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } })],
        stamp: [() => ({ name: 'run_shell_command', args: { command: 'echo stamped > STAMP.txt', description: 'stamp', is_background: false } })],
        // Another port on this machine: the agent's network reaches its model's address only.
        probe: [() => ({ name: 'run_shell_command', args: { command: `bash -c '(echo > /dev/tcp/127.0.0.1/${other.port}) 2>/dev/null && echo open > NET.txt || echo closed > NET.txt'`, description: 'probe', is_background: false } })],
      }),
    );
    const file = planFor(examples, 'qwen-test', ['Write NOTES.md with a heading (notes)', 'Stamp the project (stamp)', 'Probe the network (probe)']);
    const created = await agents(['plan', 'create', file], home, env);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();

    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(0);

    const show = await agents(['plan', 'show', id], home, env);
    expect(show.stdout).toMatch(/agent: +qwen-test \(qwen-code 0\.24\.4\)/);
    // The tokens the agent reports count toward the plan's usage, as our model's do.
    expect(show.stdout).toMatch(/tokens: +[1-9]\d* in, [1-9]\d* out/);

    const tree = await json<Tree>(['plan', 'tree', id], home);
    const tools = tree.invocations.map((i) => i.tool);
    expect(tools).toContain('file.write');
    expect(tools).toContain('qwen-test.write_file');
    expect(tools).toContain('qwen-test.run_shell_command');
    const entries = (await json<{ entries: DiffEntry[] }>(['plan', 'diff', id], home)).entries;
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect(byPath.get('NOTES.md')?.operation).toBe('create');
    const writer = tree.invocations.find((i) => i.id === byPath.get('NOTES.md')?.invocationId);
    expect(writer?.tool).toBe('file.write');
    const stamper = tree.invocations.find((i) => i.id === byPath.get('STAMP.txt')?.invocationId);
    expect(stamper?.tool).toBe('qwen-test.run_shell_command');

    expect(readFileSync(join(home, 'sandboxes', id, 'NET.txt'), 'utf8')).toBe('closed\n');
    expect(other.connections).toBe(0);

    const apply = await agents(['plan', 'apply', id], home, env);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(examples, 'acp-project', 'NOTES.md'), 'utf8')).toBe('# Notes\n');
    expect(readFileSync(join(examples, 'acp-project', 'STAMP.txt'), 'utf8')).toBe('stamped\n');
  });

  it('Claude Code (writes by itself): its write is found in the sandbox and recorded under its Write call; a declined hunk\'s reason reaches it in the correction; verify and apply', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    expect((await agents(claudeAddArgs('claude-test', server), home, env)).code).toBe(0);
    const script = agentSteps({ notes: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } })] });
    server.respondWith(script);
    const file = planFor(examples, 'claude-test', ['Write NOTES.md (notes)']);
    writeFileSync(file, `${readFileSync(file, 'utf8')}verify:\n  - test -f NOTES.md\n`);
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(0);
    const tree = await json<Tree>(['plan', 'tree', id], home);
    const entries = (await json<{ entries: DiffEntry[] }>(['plan', 'diff', id], home)).entries;
    const notes = entries.find((e) => e.path === 'NOTES.md');
    expect(notes?.operation).toBe('create');
    expect(tree.invocations.find((i) => i.id === notes?.invocationId)?.tool).toBe('claude-test.Write');
    expect(server.anthropicRequests.length).toBeGreaterThan(0);
    expect(existsSync(join(examples, 'acp-project', 'NOTES.md'))).toBe(false);

    const declined = await agents(['plan', 'reject-hunks', id, 'NOTES.md:1', '--reason', 'title it Project notes'], home, env);
    expect(declined.code, declined.stderr).toBe(0);
    const corrector = agentSteps({ notes: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'NOTES.md'), content: '# Project notes\n' } })] });
    server.respondWith(corrector);
    const corrected = await agents(['plan', 'correct', id, '--note', 'use a level-one heading'], home, env);
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(corrector.prompts.at(-1)).toContain('NOTES.md, hunk 1 (reason: title it Project notes)');
    expect(corrector.prompts.at(-1)).toContain('use a level-one heading');

    const verified = await agents(['plan', 'verify', id], home, env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const apply = await agents(['plan', 'apply', id], home, env);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(examples, 'acp-project', 'NOTES.md'), 'utf8')).toBe('# Project notes\n');
  });
});

/** Processes working in `dir` (their cwd inside it): an agent, or anything it started. */
function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) found.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe.skipIf(!testAgentsInstalled)('the project\'s invariants hold for an agent that writes by itself', () => {
  it('an inline agent (Claude Code) that asks to write a protected file is refused at its permission request, and the step fails with category invariant', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(agentSteps({ secret: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'SECRET.md'), content: 'leaked\n' } })] }));
    const file = planFor(examples, 'claude-test', ['Write SECRET.md (secret)']);
    // The agent spelled out in the plan file, with the environment `agents acp add` would keep.
    const added = claudeAddArgs('x', server);
    const pairs = added.slice(added.indexOf('x') + 1, added.indexOf('--')).filter((a) => a !== '--env');
    const inline = { command: process.execPath, args: [added.at(-1)], env: Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) };
    writeFileSync(file, readFileSync(file, 'utf8').replace('agent: { acp: claude-test }', `agent: { acp: ${JSON.stringify(inline)} }`));
    mkdirSync(join(examples, 'acp-project', '.agents'), { recursive: true });
    writeFileSync(join(examples, 'acp-project', '.agents', 'invariants.yaml'), 'protect:\n  - SECRET.md\n');
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    const shown = await agents(['plan', 'show', id], home, env);
    expect(shown.stdout).toMatch(/agent: +inline/);
    expect(shown.stdout).not.toContain('scripted');
    const json = await agents(['plan', 'show', id, '--json'], home, env);
    expect(JSON.parse(json.stdout).acp.env).toMatchObject({ ANTHROPIC_API_KEY: '(set)' });
    expect(json.stdout).not.toContain('"scripted"');
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code).not.toBe(0);
    // Refused at its permission request, before the agent writes.
    expect(run.stderr).toContain('file.write: SECRET.md is protected by the project invariant protect "SECRET.md"');
    expect(existsSync(join(home, 'sandboxes', id, 'SECRET.md'))).toBe(false);
    const plan = JSON.parse((await agents(['plan', 'show', id, '--json'], home, env)).stdout) as { errorDetails: { category?: string } };
    expect(plan.errorDetails.category).toBe('invariant');
  });
});

describe.skipIf(!testAgentsInstalled)('an agent\'s permission requests go through the approval gate', () => {
  it('supervised: its shell command waits (the agent ended), the CLI shows what it asks, approve continues the step in a new session; a rejection\'s reason reaches it when the step is retried', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    await agents(qwenAddArgs('qwen-test', server), home, env);
    const script = agentSteps({ stamp: [() => ({ name: 'run_shell_command', args: { command: 'echo stamped > STAMP.txt', description: 'stamp the project', is_background: false } })] });
    server.respondWith(script);
    const id = (await agents(['plan', 'create', planFor(examples, 'qwen-test', ['Stamp the project (stamp)'], 'supervised')], home, env)).stdout.trim();

    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(3);
    const sandbox = join(home, 'sandboxes', id);
    // A plan that waits for the operator has no agent running.
    expect(processesIn(sandbox)).toEqual([]);
    const pending = (await json<{ pending: { tool: string; args: Record<string, unknown> } }>(['plan', 'approvals', id], home)).pending;
    expect(pending.tool).toBe('shell.run');
    expect(pending.args).toMatchObject({ command: 'echo stamped > STAMP.txt', agent: 'qwen-test', kind: 'execute' });
    expect(String(pending.args.title)).toContain('echo stamped');
    const listed = await agents(['plan', 'approvals', id], home, env);
    expect(listed.stdout).toContain('echo stamped > STAMP.txt');

    const approved = await agents(['plan', 'approve', id], home, env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(readFileSync(join(sandbox, 'STAMP.txt'), 'utf8')).toBe('stamped\n');
    // The new session was told the step stopped for the operator.
    expect(script.prompts.at(-1)).toContain('waited for the operator');
    expect(processesIn(sandbox)).toEqual([]);

    // A second plan: the operator rejects the command, and the retried step's prompt carries the reason.
    const second = (await agents(['plan', 'create', planFor(examples, 'qwen-test', ['Stamp the project (stamp)'], 'supervised')], home, env)).stdout.trim();
    expect((await agents(['plan', 'run', second], home, env)).code).toBe(3);
    const rejected = await agents(['plan', 'reject', second, '--reason', 'write the stamp with printf instead'], home, env);
    expect(rejected.code).not.toBe(0);
    const shown = await agents(['plan', 'show', second], home, env);
    expect(shown.stdout).toMatch(/rejected/);
    await agents(['plan', 'retry', second], home, env);
    expect(script.prompts.at(-1)).toContain('write the stamp with printf instead');
  });
});

describe.skipIf(!testAgentsInstalled)('an agent killed mid-step', () => {
  it('fails the step as Interrupted with a hint naming the agent and its command, and retry runs the step again in a new agent', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    await agents(qwenAddArgs('qwen-test', server), home, env);
    const script = agentSteps({ notes: [(dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } })] });
    let slow = true;
    // The first turn's model call hangs, so the agent is mid-step when it is killed.
    server.respondWith((request, index) => ({ ...script(request, index), ...(slow && /Your step/.test(JSON.stringify(request.messages.at(-1))) ? { latencyMs: 60_000 } : {}) }));
    const id = (await agents(['plan', 'create', planFor(examples, 'qwen-test', ['Write NOTES.md (notes)'])], home, env)).stdout.trim();
    const sandbox = join(home, 'sandboxes', id);
    const running = agents(['plan', 'run', id], home, env);
    await expect.poll(() => script.prompts.length, { timeout: 60_000, interval: 200 }).toBe(1);
    const [agentPid] = processesIn(sandbox);
    expect(agentPid).toBeGreaterThan(0);
    process.kill(agentPid, 'SIGKILL');
    const run = await running;
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/agent qwen-test: was killed \(SIGKILL\)/);
    const shown = await agents(['plan', 'show', id, '--json'], home, env);
    const plan = JSON.parse(shown.stdout) as { errorDetails: { category?: string; hint?: string } };
    expect(plan.errorDetails.hint ?? JSON.stringify(plan.errorDetails)).toContain('cli-entry.js --acp');
    expect(processesIn(sandbox)).toEqual([]);

    slow = false;
    const retried = await agents(['plan', 'retry', id], home, env);
    expect(retried.code, retried.stderr).toBe(0);
    expect(readFileSync(join(sandbox, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
    expect(script.prompts.at(-1)).toContain('was killed');
  });
});

describe.skipIf(!testAgentsInstalled)('a fork onto another agent', () => {
  it('runs the same step with Claude Code that Qwen Code ran, and plan compare shows the two results side by side', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    await agents(qwenAddArgs('qwen-test', server), home, env);
    await agents(claudeAddArgs('claude-test', server), home, env);
    server.respondWith(
      agentSteps({
        // Qwen Code names its tool write_file, Claude Code Write: each agent is served its own.
        notes: [(dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes by Qwen\n' } })],
      }),
    );
    const id = (await agents(['plan', 'create', planFor(examples, 'qwen-test', ['Write NOTES.md (notes)'])], home, env)).stdout.trim();
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(0);

    const forked = await agents(['plan', 'fork', id, '--at-step', '1', '--agent', 'claude-test', '--json'], home, env);
    expect(forked.code, forked.stderr).toBe(0);
    const fork = JSON.parse(forked.stdout) as { id: string; acp: { name: string } };
    expect(fork.acp.name).toBe('claude-test');
    server.respondWith(agentSteps({ notes: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes by Claude\n' } })] }));
    const run = await agents(['plan', 'run', fork.id], home, env);
    expect(run.code, run.stderr).toBe(0);
    const show = await agents(['plan', 'show', fork.id], home, env);
    expect(show.stdout).toMatch(/agent: +claude-test \(@agentclientprotocol\/claude-agent-acp 0\.101\.0\)/);

    const compared = await agents(['plan', 'compare', id, fork.id], home, env);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain('NOTES.md');
    expect(compared.stdout).toContain('-# Notes by Qwen');
    expect(compared.stdout).toContain('+# Notes by Claude');

    const wrong = await agents(['plan', 'fork', id, '--at-step', '1', '--agent', 'nobody'], home, env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown agent "nobody"');
  });
});

describe('agents acp: the agents as data, bad input in one line', () => {
  it('adds, lists (starting each: its version and modes; a built-in not installed is no failure) and removes agents, never showing an environment value', LONG, async () => {
    const { home } = sandboxWorkspace();
    expect((await agents(['acp', 'add', 'broken', '--env', 'TOKEN=s3cret-value', '--', '/bin/false'], home, env)).code).toBe(0);
    const missing = await agents(['acp', 'add', 'nothing'], home, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('agents acp add NAME -- COMMAND');
    const badName = await agents(['acp', 'add', 'Bad Name', '--', 'x'], home, env);
    expect(badName.code).toBe(2);

    // No PATH with the built-ins: each is listed as not installed, which is no failure; the broken one is.
    const list = await agents(['acp', 'list', '--json'], home, { ...env, PATH: '/usr/bin:/bin' });
    expect(list.code).toBe(1);
    expect(list.stdout).not.toContain('s3cret-value');
    const checks = JSON.parse(list.stdout) as { name: string; builtin: boolean; installed: boolean; ok: boolean; error: string | null; env: string[] }[];
    expect(checks.find((c) => c.name === 'broken')).toMatchObject({ builtin: false, installed: true, ok: false, env: ['TOKEN'] });
    expect(checks.find((c) => c.name === 'broken')?.error).toMatch(/exited \(code 1\) before it answered initialize/);
    expect(checks.filter((c) => c.builtin).map((c) => [c.name, c.installed])).toEqual([
      ['claude', false],
      ['qwen', false],
      ['opencode', false],
      ['gemini', false],
      ['codex', false],
    ]);

    expect((await agents(['acp', 'remove', 'broken'], home, env)).code).toBe(0);
    const gone = await agents(['acp', 'remove', 'broken'], home, env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('no agent "broken" was added');
  });

  it.skipIf(!testAgentsInstalled)('lists a working agent with what its initialize reports', LONG, async () => {
    const { home } = sandboxWorkspace();
    await agents(qwenAddArgs('qwen-test', server), home, env);
    const list = await agents(['acp', 'list'], home, { ...env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect(list.code, list.stdout).toBe(0);
    expect(list.stdout).toMatch(/^qwen-test: .*cli-entry\.js --acp/m);
    expect(list.stdout).toMatch(/starts: qwen-code 0\.24\.4; modes: plan, default, auto-edit, auto, yolo/);
    expect(list.stdout).toMatch(/^claude \(built in\): not installed/m);
  });

  it('refuses a plan naming an unknown agent in one line that lists the agents', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const created = await agents(['plan', 'create', planFor(examples, 'nobody', ['Anything'])], home, env);
    expect(created.code).toBe(2);
    expect(created.stderr.trim().split('\n')).toHaveLength(1);
    expect(created.stderr).toContain('unknown agent "nobody"; the agents are claude, qwen, opencode, gemini, codex');
  });

  it('an agent that exits at initialize, never answers it, breaks the protocol mid-turn or asks with options it cannot be answered with fails the step in one line naming it and its command', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const settings = join(home, 'settings.json');
    const misbehaving = join(__dirname, '../support/acp-misbehaving-agent.mjs');
    const cases: [string, RegExp][] = [
      ['exit', /agent bad-exit: exited \(code 3\) before it answered initialize: misbehaving agent: no configuration found/],
      ['silent', /agent bad-silent: did not answer initialize within 3 s/],
      ['protocol-error', /agent bad-protocol-error: its turn \(session\/prompt\) failed: internal failure of the agent/],
      ['odd-permission', /agent bad-odd-permission: asked permission for "Do something" with options that cannot be mapped onto approve and reject: maybe \(allow_once\)/],
    ];
    for (const [mode] of cases) expect((await agents(['acp', 'add', `bad-${mode}`, '--', process.execPath, misbehaving, mode], home, env)).code).toBe(0);
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), acp: { ...JSON.parse(readFileSync(settings, 'utf8')).acp, startTimeoutSeconds: 3 } }));
    for (const [mode, message] of cases) {
      const id = (await agents(['plan', 'create', planFor(examples, `bad-${mode}`, ['Anything'])], home, env)).stdout.trim();
      const run = await agents(['plan', 'run', id], home, env);
      expect(run.code, `${mode}: ${run.stderr}`).not.toBe(0);
      expect(run.stderr, mode).toMatch(message);
      const plan = JSON.parse((await agents(['plan', 'show', id, '--json'], home, env)).stdout) as { errorDetails: { hint?: string } };
      expect(plan.errorDetails.hint, mode).toContain(`acp-misbehaving-agent.mjs ${mode}`);
      expect(processesIn(join(home, 'sandboxes', id)), mode).toEqual([]);
    }
  });
});
