import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { SettingsViewSchema } from '../../shared/agent';
import { fileWritingAgent } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

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

// Each test starts the CLI many times; on a busy machine each start takes seconds.
const LONG = { timeout: 120_000 };

const CHANGELOG = '# Changelog\n\n## Unreleased\n\n- The project started.\n';

describe('an agent plan driven by the CLI against an OpenAI-compatible server on 127.0.0.1', () => {
  it('strategizes, waits for the proposed tree to be approved, executes with tool calls, and applies', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'agent-changelog.yaml');
    expect(readFileSync(file, 'utf8')).not.toMatch(/tools:|tool:/);
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));

    const created = await agents(['plan', 'create', file], home, env);
    expect(created.code).toBe(0);
    const id = created.stdout.trim();

    // Not a terminal: the run stops with exit 3 while the proposed tree waits.
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('The model proposes 1 step');
    expect(run.stderr).toContain('Write CHANGELOG.md');

    const approvals = await agents(['plan', 'approvals', id, '--json'], home, env);
    expect(JSON.parse(approvals.stdout).pending).toMatchObject({ kind: 'plan', status: 'pending' });

    const approve = await agents(['plan', 'approve', id, '--stream'], home, env);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toMatch(/^model: .*I will write CHANGELOG\.md now\./m);
    expect(approve.stdout).toMatch(/^file\.write ok in /m);
    expect(approve.stdout).toMatch(/^\d+ tokens in, \d+ out \(plan: \d+ in, \d+ out\)$/m);

    const show = await agents(['plan', 'show', id], home, env);
    expect(show.stdout).toMatch(/tokens: +850 in, 145 out/);
    const diff = await agents(['plan', 'diff', id], home, env);
    expect(diff.stdout).toContain('CREATE CHANGELOG.md');

    const apply = await agents(['plan', 'apply', id], home, env);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(examples, 'demo-project', 'CHANGELOG.md'), 'utf8')).toBe(CHANGELOG);
    // Every request went to the scripted server, streamed, with the model from the environment.
    expect(server.requests.every((r) => r.model === 'scripted' && r.stream === true)).toBe(true);
  });

  it('while the proposed tree waits, --stream ends on the approval it waits for, and plan show names the proposed steps', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    const id = (await agents(['plan', 'create', join(examples, 'agent-changelog.yaml')], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id, '--stream'], home, env);
    expect(run.code, run.stderr).toBe(3);
    const lines = run.stdout.trim().split('\n');
    // Nothing says the plan is ready to run or about to execute: the last lines say what it waits for.
    expect(lines).not.toContain('Ready to run');
    expect(lines).not.toContain('strategy ready');
    expect(lines.slice(-2)).toEqual(["The model proposes 1 step, waiting for the operator's approval", 'Waiting for approval']);
    expect(run.stderr).toContain('The model proposes 1 step; approve to execute it, or reject');
    expect(run.stderr).toContain(`approve with: agents plan approve ${id}\n`);
    const show = await agents(['plan', 'show', id], home, env);
    expect(show.stdout).toContain("  waiting:    for the operator to approve the proposed steps\n");
  });

  it('under full-auto the proposed tree does not wait', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    const id = (await agents(['plan', 'create', join(examples, 'agent-changelog.yaml'), '--profile', 'full-auto'], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id, '--json'], home, env);
    expect(run.code, run.stderr).toBe(0);
    expect(PlanSchema.parse(JSON.parse(run.stdout))).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('refuses an agent plan with no model configured at create, with exit 2 and one line', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'agent-changelog.yaml');
    const create = await agents(['plan', 'create', file], home, { AGENTS_MODEL: '', AGENTS_BASE_URL: '' });
    expect(create.code).toBe(2);
    expect(create.stderr.trim().split('\n')).toHaveLength(1);
    expect(create.stderr).toContain('AGENTS_MODEL');
    expect(create.stderr).toContain('agents config set model');

    // A process that cannot use a plan's model refuses it: tests/cli/plan-model.test.ts.
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a tool call in an agent plan file, naming the step', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'agent-bad.yaml');
    writeFileSync(file, 'name: bad\nagent: true\ndefinitionOfDone:\n  - Plain step\n  - step: Scripted\n    tools:\n      - { tool: file.write, args: { path: a, content: b } }\n');
    const create = await agents(['plan', 'create', file], home, env);
    expect(create.code).toBe(2);
    expect(create.stderr).toContain('definitionOfDone.1.tools');
  });

  it('a 401 fails the plan with a hint naming AGENTS_API_KEY and agents config', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } });
    const id = (await agents(['plan', 'create', join(examples, 'agent-changelog.yaml')], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/hint: .*AGENTS_API_KEY.*agents config set apiKey/);
  });
});

describe('agents config', () => {
  it('stores the settings in a 0600 file, never prints the key, and the environment wins', LONG, async () => {
    const { home } = sandboxWorkspace();
    const none = { AGENTS_MODEL: '', AGENTS_BASE_URL: '', AGENTS_API_KEY: '' };
    expect((await agents(['config', 'set', 'model', 'ollama:qwen2.5-coder'], home, none)).code).toBe(0);
    expect((await agents(['config', 'set', 'apiKey', 'sk-secret-123'], home, none)).code).toBe(0);
    expect((await agents(['config', 'set', 'priceInput', '3'], home, none)).code).toBe(0);
    expect((await agents(['config', 'set', 'priceOutput', '15'], home, none)).code).toBe(0);
    const file = join(home, 'settings.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    expect((await agents(['config', 'get', 'model'], home, none)).stdout.trim()).toBe('ollama:qwen2.5-coder');
    const key = await agents(['config', 'get', 'apiKey'], home, none);
    expect(key.stdout.trim()).toBe('(set)');
    const list = await agents(['config', 'list', '--json'], home, none);
    expect(list.stdout).not.toContain('sk-secret-123');
    const view = SettingsViewSchema.parse(JSON.parse(list.stdout));
    expect(view).toMatchObject({ model: 'ollama:qwen2.5-coder', apiKeySet: true, price: { inputPerMTok: 3, outputPerMTok: 15 } });
    expect(view.effective).toMatchObject({ model: 'ollama:qwen2.5-coder', modelSource: 'settings', apiKeySource: 'settings' });

    const fromEnv = SettingsViewSchema.parse(JSON.parse((await agents(['config', 'list', '--json'], home, { ...none, AGENTS_MODEL: 'openai:gpt-4.1-mini' })).stdout));
    expect(fromEnv.effective).toMatchObject({ model: 'openai:gpt-4.1-mini', modelSource: 'env' });

    expect((await agents(['config', 'set', 'model', 'nonsense'], home, none)).code).toBe(2);
    expect((await agents(['config', 'set', 'colour', 'blue'], home, none)).code).toBe(2);
    expect((await agents(['config', 'unset', 'apiKey'], home, none)).code).toBe(0);
    expect((await agents(['config', 'get', 'apiKey'], home, none)).stdout.trim()).toBe('(not set)');
    expect(existsSync(file)).toBe(true);
  });

  it('a model from the settings file runs a plan, and a price turns tokens into cost', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const none = { AGENTS_MODEL: '', AGENTS_BASE_URL: '', AGENTS_API_KEY: '' };
    await agents(['config', 'set', 'model', 'openai-compatible:from-settings'], home, none);
    await agents(['config', 'set', 'baseUrl', server.baseUrl], home, none);
    await agents(['config', 'set', 'priceInput', '2'], home, none);
    await agents(['config', 'set', 'priceOutput', '10'], home, none);
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    const id = (await agents(['plan', 'create', join(examples, 'agent-changelog.yaml'), '--profile', 'full-auto'], home, none)).stdout.trim();
    const run = await agents(['plan', 'run', id], home, none);
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0].model).toBe('from-settings');
    const show = await agents(['plan', 'show', id], home, none);
    // 850 in at 2 per million, 145 out at 10 per million.
    expect(show.stdout).toMatch(/tokens: +850 in, 145 out \(cost 0\.0032\)/);
  });
});
