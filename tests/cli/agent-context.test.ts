import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inProcessCli } from '../../main/cli/test-support';
import { isStrategize } from '../support/scripted-agent';
import { type ChatRequest, ScriptedModelServer, type ScriptedReply } from '../support/scripted-model-server';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 120_000 };

/** A project with one file of `chars` characters, and an agent plan over it with the given `agent:` settings. */
function agentPlan(agent: string, chars = 200): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-context-'));
  const project = join(dir, 'project');
  const lines = Array.from({ length: Math.ceil(chars / 50) }, (_, i) => `line ${String(i).padStart(4, '0')} of the notes, kept for the record.`);
  writeFileSync(join(dir, 'plan.yaml'), `name: reader\nproject: ./project\nagent: ${agent}\ndefinitionOfDone: |\n  - The notes are read\n`);
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), `${lines.join('\n')}\n`);
  return join(dir, 'plan.yaml');
}

const PROPOSE: ScriptedReply = {
  toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Read the notes', rationale: 'The definition of done asks for it', acceptance: 'The notes were read' }] } }],
};

/** What a request weighs by the count the engine keeps it under: four characters a token. */
const tokensOf = (request: ChatRequest) => Math.ceil(JSON.stringify({ messages: request.messages, tools: request.tools }).length / 4);

async function withModel(agents: ReturnType<typeof inProcessCli>['agents'], model: string) {
  expect((await agents('config', 'set', 'model', model)).code).toBe(0);
  expect((await agents('config', 'set', 'baseUrl', server.baseUrl)).code).toBe(0);
  expect((await agents('config', 'set', 'apiKey', 'test-key')).code).toBe(0);
}

describe("a step's conversation within its context", () => {
  it('a 60-turn step whose requests all stay under the context size finishes, the folds in its log', LONG, async () => {
    const { agents } = inProcessCli();
    await withModel(agents, 'openai-compatible:scripted');
    const file = agentPlan('{ contextTokens: 4000, maxTurnsPerStep: 70 }', 3_000);
    let executeTurns = 0;
    server.respondWith((request) => {
      if (isStrategize(request)) return PROPOSE;
      executeTurns += 1;
      if (executeTurns <= 60) return { text: `Reading the notes again (${executeTurns}).`, toolCalls: [{ name: 'file_read', args: { path: 'notes.txt' } }] };
      return { toolCalls: [{ name: 'finish_step', args: { summary: 'Read the notes sixty times.' } }] };
    });
    const id = (await agents('plan', 'create', file, '--profile', 'full-auto')).stdout.trim();
    const run = await agents('plan', 'run', id, '--stream');
    expect(run.code, run.stderr).toBe(0);
    expect(executeTurns).toBe(61);

    const steps = server.requests.filter((r) => !isStrategize(r));
    expect(steps).toHaveLength(61);
    const sizes = steps.map(tokensOf);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4_000);
    const last = steps.at(-1)!;
    expect(last.messages.some((m) => typeof m.content === 'string' && m.content.startsWith('Earlier in this step (folded to keep the step within its context):'))).toBe(true);
    // The answer to the call the model just made reaches it whole.
    expect(String(last.messages.at(-1)?.content)).toContain('line 0059 of the notes');
    expect(run.stdout).toMatch(/^context kept within 4000 tokens: .*(tool results? cut to one line|turns? folded into a summary)/m);
  });
});

describe('prompt caching', () => {
  it('cached input tokens from an OpenAI-compatible server are shown in the usage and priced apart', LONG, async () => {
    const { agents } = inProcessCli();
    await withModel(agents, 'openai-compatible:scripted');
    await agents('config', 'set', 'priceInput', '2');
    await agents('config', 'set', 'priceCachedInput', '0.5');
    await agents('config', 'set', 'priceOutput', '10');
    server.respondWith((request) =>
      isStrategize(request)
        ? { ...PROPOSE, usage: { input: 1_000, output: 50 } }
        : { toolCalls: [{ name: 'finish_step', args: { summary: 'Nothing to do.' } }], usage: { input: 1_000, output: 50, cached: 800 } },
    );
    const id = (await agents('plan', 'create', agentPlan('true'), '--profile', 'full-auto')).stdout.trim();
    const run = await agents('plan', 'run', id, '--stream');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^1000 tokens in \(800 cached\), 50 out \(plan: 2000 in, 100 out\)$/m);
    const show = await agents('plan', 'show', id);
    // 1,200 uncached at 2, 800 cached at 0.5 and 100 out at 10, per million.
    expect(show.stdout).toMatch(/tokens: +2000 in \(800 cached\), 100 out \(cost 0\.0038\)/);
    const config = await agents('config', 'get', 'priceCachedInput');
    expect(config.stdout.trim()).toMatch(/^0\.5/);
  });

  it("Anthropic's requests mark the tools and the system prompt cacheable, and its cache reads are counted", LONG, async () => {
    const { agents } = inProcessCli();
    await withModel(agents, 'anthropic:claude-sonnet-4-5');
    server.respondWith((request) =>
      isStrategize(request)
        ? { ...PROPOSE, usage: { input: 3_000, output: 40 } }
        : { toolCalls: [{ name: 'finish_step', args: { summary: 'Nothing to do.' } }], usage: { input: 3_000, output: 20, cached: 2_500 } },
    );
    const id = (await agents('plan', 'create', agentPlan('true'), '--profile', 'full-auto')).stdout.trim();
    const run = await agents('plan', 'run', id);
    expect(run.code, run.stderr).toBe(0);
    expect(server.anthropicRequests).toHaveLength(2);
    for (const request of server.anthropicRequests) {
      expect(request.system).toEqual([expect.objectContaining({ type: 'text', cache_control: { type: 'ephemeral' } })]);
      expect(request.tools?.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(request.tools?.slice(0, -1).every((t) => t.cache_control === undefined)).toBe(true);
    }
    const show = await agents('plan', 'show', id);
    expect(show.stdout).toMatch(/tokens: +6000 in \(2500 cached\), 60 out/);
  });
});
