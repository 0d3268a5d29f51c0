import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/contract';
import { openApp } from '../../main/app/open-app';
import { createRouter } from '../../main/host/router';
import { fileWritingAgent, isStrategize } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
/** A process with no model settings at all: every variable blank, and no settings file in the data directory. */
const NO_MODEL = { AGENTS_MODEL: '', AGENTS_BASE_URL: '', AGENTS_API_KEY: '' };
let withModel: Record<string, string>;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  withModel = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
});

const LONG = { timeout: 180_000 };
const CHANGELOG = '# Changelog\n\n## Unreleased\n\n- The project started.\n';

/** Strategizes a new agent plan in a CLI with the model in its environment; it stops with the proposed tree waiting. */
async function strategizedPlan(home: string, file: string, env: Record<string, string>): Promise<string> {
  const created = await agents(['plan', 'create', file], home, env);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  const run = await agents(['plan', 'run', id], home, env);
  expect(run.code, run.stderr).toBe(3);
  return id;
}

describe("one model per plan, across processes", () => {
  it('a plan strategized by a CLI with AGENTS_MODEL and AGENTS_BASE_URL is approved and executed by a CLI with no model settings, on its own model', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    const id = await strategizedPlan(home, join(examples, 'agent-changelog.yaml'), withModel);
    const strategizeRequests = server.requests.length;

    const show = await agents(['plan', 'show', id], home, NO_MODEL);
    expect(show.stdout).toContain(`model:      openai-compatible:scripted at ${server.baseUrl}`);
    const json = JSON.parse((await agents(['plan', 'show', id, '--json'], home, NO_MODEL)).stdout);
    expect(json.agent).toMatchObject({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl });
    expect(json.model).toEqual({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl, usable: true, problem: null });

    const approve = await agents(['plan', 'approve', id], home, NO_MODEL);
    expect(approve.code, approve.stderr).toBe(0);
    const executeRequests = server.requests.slice(strategizeRequests);
    expect(executeRequests.length).toBeGreaterThan(0);
    expect(executeRequests.every((r) => !isStrategize(r) && r.model === 'scripted')).toBe(true);
    const diff = await agents(['plan', 'diff', id], home, NO_MODEL);
    expect(diff.stdout).toContain('CREATE CHANGELOG.md');
  });

  it('and by the console host (openApp and the router) started with an empty environment', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    const id = await strategizedPlan(home, join(examples, 'agent-changelog.yaml'), withModel);
    const strategizeRequests = server.requests.length;

    const app = await openApp({ dataDir: home, env: {} });
    try {
      const router = createRouter(app.service, { log: () => undefined });
      const got = (await router.handle('plans.get', { planId: id })) as Envelope<{ model: unknown }>;
      expect(got.ok && got.data.model).toEqual({ model: 'openai-compatible:scripted', baseUrl: server.baseUrl, usable: true, problem: null });
      const approved = await router.handle('plans.approve', { planId: id });
      expect(approved.ok).toBe(true);
      await app.service.idle();
      expect(await app.service.get(id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
      expect(server.requests.slice(strategizeRequests).some((r) => !isStrategize(r))).toBe(true);
    } finally {
      app.close();
    }
  });

  it('a process without a key for the plan\'s provider refuses plan approve and plan run with exit 2 and a line naming AGENTS_API_KEY', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
    // openai: speaks the same protocol, and needs a key.
    const keyed = { AGENTS_MODEL: 'openai:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: 'sk-test' };
    const id = await strategizedPlan(home, join(examples, 'agent-changelog.yaml'), keyed);
    const before = server.requests.length;

    const approve = await agents(['plan', 'approve', id], home, NO_MODEL);
    expect(approve.code).toBe(2);
    expect(approve.stderr.trim().split('\n')).toHaveLength(1);
    expect(approve.stderr).toContain('AGENTS_API_KEY');
    const approvals = JSON.parse((await agents(['plan', 'approvals', id, '--json'], home, NO_MODEL)).stdout);
    expect(approvals.pending).toMatchObject({ kind: 'plan', status: 'pending' });

    const second = await agents(['plan', 'create', join(examples, 'agent-changelog.yaml')], home, keyed);
    const run = await agents(['plan', 'run', second.stdout.trim()], home, NO_MODEL);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('AGENTS_API_KEY');
    expect(server.requests).toHaveLength(before);

    const show = await agents(['plan', 'show', id], home, NO_MODEL);
    expect(show.stdout).toMatch(/model: +openai:scripted at .* \(not usable here: AGENTS_API_KEY: /);
  });

  it("a process whose key is for another server refuses to approve or run a plan recorded at server A, and A never receives that key", LONG, async () => {
    const other = await new ScriptedModelServer().start();
    try {
      const { home, examples } = sandboxWorkspace();
      server.respondWith(fileWritingAgent({ 'CHANGELOG.md': CHANGELOG }));
      const id = await strategizedPlan(home, join(examples, 'agent-changelog.yaml'), withModel);
      const second = (await agents(['plan', 'create', join(examples, 'agent-changelog.yaml')], home, withModel)).stdout.trim();
      const before = server.requests.length;
      // The shell of another project: its key is for server B.
      const elsewhere = { AGENTS_MODEL: '', AGENTS_BASE_URL: other.baseUrl, AGENTS_API_KEY: 'secret' };
      const refusal = `AGENTS_BASE_URL: the plan's model is at ${server.baseUrl}, but AGENTS_API_KEY is for ${other.baseUrl}: set AGENTS_BASE_URL to the plan's address`;

      for (const args of [['plan', 'approve', id], ['plan', 'run', second]]) {
        const refused = await agents(args, home, elsewhere);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
        expect(refused.stderr).toContain(refusal);
      }
      expect(server.requests).toHaveLength(before);
      expect(other.headers).toHaveLength(0);
      expect(server.headers.length).toBeGreaterThan(0);
      expect(server.headers.some((h) => h.authorization?.includes('secret'))).toBe(false);

      // The same key given for server A's own address does reach it.
      const here = await agents(['plan', 'run', second], home, { ...elsewhere, AGENTS_BASE_URL: `${server.baseUrl}/` });
      expect(here.code, here.stderr).toBe(3);
      expect(server.headers.slice(before).some((h) => h.authorization === 'Bearer secret')).toBe(true);
    } finally {
      await other.close();
    }
  });
});
