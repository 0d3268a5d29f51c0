// A plan's MCP server that writes to the sandbox and then asks the operator a question: what it
// wrote before asking is the call's change, recorded once, though the call runs again with the
// answer. The probe server (its write-then-ask tool, confined as any local server) and the scripted model.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isStrategize, toolResults } from '../../tests/support/scripted-agent';
import { type ChatRequest, ScriptedModelServer, type ScriptedReply } from '../../tests/support/scripted-model-server';
import { SANDBOXES_FOLDER } from '../persistence/data-dir';
import { type App, openApp } from './open-app';

const PROBE = join(__dirname, '../../tests/support/mcp-probe-server.mjs');
const server = new ScriptedModelServer();
let root: string;
let app: App;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  root = mkdtempSync(join(tmpdir(), 'agents-mcp-elicit-'));
  mkdirSync(join(root, 'project'));
  writeFileSync(join(root, 'project', 'README.md'), '# Demo\n');
  app = await openApp({ dataDir: join(root, 'data'), env: { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl }, sleep: () => Promise.resolve() });
});
afterEach(async () => {
  await app.service.idle();
  app.close();
  rmSync(root, { recursive: true, force: true });
});

const planFile = () =>
  `name: ask\nproject: ${JSON.stringify(join(root, 'project'))}\nautomationProfile: { base: trusted, allow: ["probe.*"], autoRetryTransient: 0 }\nagent: true\ndefinitionOfDone: answer.txt holds the answer\nmcp:\n  servers:\n    probe: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(PROBE)}] }\n`;

/** One step: the call that writes and asks, then finish. */
function agent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Ask the operator', rationale: 'asked', acceptance: 'answered' }] } }] };
  if (toolResults(request) === 0) return { toolCalls: [{ name: 'probe_write-then-ask', args: { path: 'before.txt' } }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
}

async function stoppedAtQuestion() {
  server.respondWith(agent);
  const plan = await app.service.createFromContent({ content: planFile() }, root);
  expect(await app.service.run(plan.id)).toMatchObject({ waitingFor: 'approval' });
  // The proposed step first, then the server's question.
  expect(await app.service.approve(plan.id, { by: 'ada' })).toMatchObject({ waitingFor: 'approval' });
  expect((await app.service.approvals(plan.id)).pending).toMatchObject({ kind: 'input', tool: 'probe.write-then-ask' });
  return plan.id;
}

describe('an MCP server that writes before it asks the operator', () => {
  it('has that write recorded as the call’s change while the question waits, and once after the call runs again with the answer', { timeout: 60_000 }, async () => {
    const planId = await stoppedAtQuestion();
    const sandbox = join(app.dataDir, SANDBOXES_FOLDER, planId);
    expect(readFileSync(join(sandbox, 'before.txt'), 'utf8')).toBe('written before asking\n');
    // The call's, not taken for the operator's hand edit when the run goes on.
    const waiting = (await app.service.changes(planId)).entries;
    expect(waiting).toMatchObject([{ path: 'before.txt', operation: 'create', decisionId: expect.any(String), invocationId: expect.any(String) }]);

    const done = await app.service.approve(planId, { by: 'ada', input: { text: 'hello' } });
    expect(done.waitingFor).not.toBe('approval');
    const entries = (await app.service.changes(planId)).entries;
    expect(entries.map((e) => [e.path, e.operation]).sort()).toEqual([
      ['answer.txt', 'create'],
      ['before.txt', 'create'],
    ]);
    // Both belong to the one call that finished, whose two runs were one invocation.
    const calls = (await app.service.invocations(planId)).filter((i) => i.tool === 'probe.write-then-ask');
    expect(calls).toMatchObject([{ ok: true, result: "the operator's answer: accept" }]);
    expect(entries.map((e) => e.invocationId)).toEqual([calls[0].id, calls[0].id]);
    expect(entries.find((e) => e.path === 'before.txt')).toMatchObject({ id: waiting[0].id, invocationId: waiting[0].invocationId, decisionId: calls[0].decisionId });
    expect(readFileSync(join(sandbox, 'answer.txt'), 'utf8')).toBe('hello\n');
  });
});
