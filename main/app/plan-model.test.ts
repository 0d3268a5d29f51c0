import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fileWritingAgent, isStrategize } from '../../tests/support/scripted-agent';
import { ScriptedModelServer, type ScriptedReply } from '../../tests/support/scripted-model-server';
import { classifyError } from '../engine/run/error-recovery-service';
import { ModelSettingError } from '../engine/model/model-config';
import { type App, openApp } from './open-app';

const server = new ScriptedModelServer();
let root: string;
let apps: App[];

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  root = mkdtempSync(join(tmpdir(), 'agents-plan-model-'));
  mkdirSync(join(root, 'project'));
  writeFileSync(join(root, 'project', 'README.md'), '# Demo\n');
  apps = [];
});
afterEach(async () => {
  for (const app of apps) {
    await app.service.idle();
    app.close();
  }
  rmSync(root, { recursive: true, force: true });
});

async function open(env: NodeJS.ProcessEnv): Promise<App> {
  const app = await openApp({ dataDir: join(root, 'data'), env, sleep: () => Promise.resolve() });
  apps.push(app);
  return app;
}

const planFile = (agent = 'true') =>
  `name: agent-plan\nproject: ${JSON.stringify(join(root, 'project'))}\nautomationProfile: { base: full-auto, autoRetryTransient: 2 }\nagent: ${agent}\ndefinitionOfDone: NOTES.md says hello\n`;

describe("a model server's broken answers, through the plan's retries", () => {
  it.each(['cut', 'invalid-json', 'no-finish', 'html', 'nameless-tool'] as const)(
    'a server that answers "%s" is retried as transient up to the limit, then the plan fails with model_output',
    async (misbehave) => {
      const app = await open({ AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl });
      server.respondWith((): ScriptedReply => ({ text: 'Half an answer', misbehave }));
      const plan = await app.service.createFromContent({ content: planFile() }, root);
      const done = await app.service.run(plan.id);
      expect(done.processingState).toBe('errored');
      const { errors, recoveryHints } = await app.service.errors(plan.id);
      expect(errors.map((e) => [e.category, e.outcome])).toEqual([
        ['transient', 'retried'],
        ['transient', 'retried'],
        ['model_output', 'gave_up'],
      ]);
      expect(errors.at(-1)?.hint).toContain(`The model server at ${server.baseUrl}`);
      expect(recoveryHints[0]).toMatchObject({ action: 'retry', args: {} });
      expect(server.requests).toHaveLength(3);
    },
  );
});

describe('one model per plan', () => {
  it('is recorded when the plan is created, and a process with no model settings runs it on that model', async () => {
    const creator = await open({ AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl });
    const plan = await creator.service.createFromContent({ content: planFile() }, root);
    expect(plan.agent).toMatchObject({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl });
    creator.close();
    apps = [];

    server.respondWith(fileWritingAgent({ 'NOTES.md': 'hello\n' }));
    const bare = await open({});
    expect(bare.service.planModel(await bare.service.get(plan.id))).toEqual({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl, usable: true, problem: null });
    const done = await bare.service.run(plan.id);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(server.requests.some((r) => !isStrategize(r))).toBe(true);
    expect(server.requests.every((r) => r.model === 'scripted')).toBe(true);
  });

  it('a plan pinned to ollama: goes to Ollama, not to the base URL another model set in the environment', async () => {
    const app = await open({ AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl });
    const plan = await app.service.createFromContent({ content: planFile('{ model: "ollama:qwen2.5-coder:7b" }') }, root);
    expect(plan.agent).toMatchObject({ model: 'ollama:qwen2.5-coder:7b', baseUrl: 'http://127.0.0.1:11434/v1' });
  });

  it('a plan made before plans kept their model records the one it first strategizes with', async () => {
    const app = await open({ AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl });
    const plan = await app.service.createFromContent({ content: planFile() }, root);
    // As an older plan was stored: the file named no model, and none was recorded.
    await app.service.lifecycle.update(plan.id, { agent: { model: null, maxTurnsPerStep: 20, maxOutputTokens: 16000 } });
    server.respondWith(fileWritingAgent({ 'NOTES.md': 'hello\n' }));
    await app.service.run(plan.id);
    expect((await app.service.get(plan.id)).agent).toMatchObject({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl });
  });

  it('a process that cannot use the model refuses to run it with one line naming the setting; inside a run that is model_config, never validation', async () => {
    const app = await open({ AGENTS_MODEL: 'openai:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: 'sk-test' });
    const plan = await app.service.createFromContent({ content: planFile() }, root);
    app.close();
    apps = [];
    const keyless = await open({});
    const refusal = await keyless.service.run(plan.id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ModelSettingError);
    expect(String((refusal as Error).message)).toMatch(/^AGENTS_API_KEY: .*openai/);
    expect(classifyError(refusal)).toBe('model_config');
    expect((refusal as ModelSettingError).hint).toContain('AGENTS_API_KEY');
    expect((await keyless.service.get(plan.id)).processingState).toBe('queued');
    expect(server.requests).toHaveLength(0);

    // A plan that failed where the key was: this process cannot retry it either, and the failure stays as it was.
    keyless.close();
    apps = [];
    server.respondWith((): ScriptedReply => ({ misbehave: 'cut' }));
    // The key goes only to the address its own source names, so this process gives the plan's.
    const keyed = await open({ AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: 'sk-test' });
    expect((await keyed.service.run(plan.id)).processingState).toBe('errored');
    keyed.close();
    apps = [];
    const again = await open({});
    await expect(again.service.retry(plan.id)).rejects.toThrow(/^AGENTS_API_KEY: /);
    expect((await again.service.get(plan.id)).processingState).toBe('errored');
    expect((await again.service.errors(plan.id)).recoveryDecisions.filter((d) => d.description === 'Retried by the operator')).toHaveLength(0);
  });
});
