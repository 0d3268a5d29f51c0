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
import type { DecisionNode } from './plan-service';
import { watchQuestionTimeouts } from './question-timeouts';

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

const planFile = (questionTimeoutMs?: number) =>
  `name: ask\nproject: ${JSON.stringify(join(root, 'project'))}\nautomationProfile: { base: trusted, allow: ["probe.*"], autoRetryTransient: 0 }\nagent: true\ndefinitionOfDone: answer.txt holds the answer\nmcp:\n  servers:\n    probe: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(PROBE)}]${questionTimeoutMs ? `, questionTimeoutMs: ${questionTimeoutMs}` : ''} }\n`;

/** One step: the call that writes and asks, then finish. */
function agent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Ask the operator', rationale: 'asked', acceptance: 'answered' }] } }] };
  if (toolResults(request) === 0) return { toolCalls: [{ name: 'probe_write-then-ask', args: { path: 'before.txt' } }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
}

async function stoppedAtQuestion(questionTimeoutMs?: number) {
  server.respondWith(agent);
  const plan = await app.service.createFromContent({ content: planFile(questionTimeoutMs) }, root);
  expect(await app.service.run(plan.id)).toMatchObject({ waitingFor: 'approval' });
  // The proposed step first, then the server's question.
  expect(await app.service.approve(plan.id, { by: 'ada' })).toMatchObject({ waitingFor: 'approval' });
  expect((await app.service.approvals(plan.id)).pending).toMatchObject({ kind: 'input', tool: 'probe.write-then-ask' });
  return plan.id;
}

describe('an MCP server that writes, then asks the operator a question', () => {
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

  it('is told cancel when the operator cancels the question, and the step goes on with what the tool then said', { timeout: 60_000 }, async () => {
    const planId = await stoppedAtQuestion();
    const done = await app.service.reject(planId, { by: 'ada', cancel: true });
    expect(done.waitingFor).not.toBe('approval');
    expect((await app.service.invocations(planId)).find((i) => i.tool === 'probe.write-then-ask')).toMatchObject({ ok: true, result: "the operator's answer: cancel" });
    expect((await app.service.approvals(planId)).approvals.find((a) => a.kind === 'input')).toMatchObject({ status: 'rejected', cancelled: true, answeredBy: 'ada' });
    const all = (node: DecisionNode): DecisionNode[] => [node, ...node.children.flatMap(all)];
    const tree = await app.service.tree(planId);
    expect(tree && all(tree).find((node) => node.type === 'approval' && node.description.startsWith('Cancelled'))).toMatchObject({ description: 'Cancelled the question of probe', rationale: expect.stringMatching(/^cancelled by ada on /) });
    expect((await app.service.changes(planId)).entries.map((e) => e.path)).toEqual(['before.txt']);
  });

  it('is told cancel when nobody answers within its server’s questionTimeoutMs, while a console host watches', { timeout: 60_000 }, async () => {
    const problems: unknown[] = [];
    const watch = watchQuestionTimeouts(app.service, (_message, error) => problems.push(error));
    try {
      const planId = await stoppedAtQuestion(1_500);
      const question = (await app.service.approvals(planId)).pending;
      expect(Date.parse(question?.expiresAt ?? '') - Date.parse(question?.createdAt ?? '')).toBe(1_500);
      for (const end = Date.now() + 30_000; Date.now() < end && (await app.service.approvals(planId)).pending; ) await new Promise((resolve) => setTimeout(resolve, 100));
      await app.service.idle();
      expect((await app.service.approvals(planId)).approvals.find((a) => a.kind === 'input')).toMatchObject({ status: 'rejected', cancelled: true, answeredBy: 'the time limit', reason: 'no answer within 1.5 s' });
      expect((await app.service.invocations(planId)).find((i) => i.tool === 'probe.write-then-ask')).toMatchObject({ ok: true, result: "the operator's answer: cancel" });
      expect(problems).toEqual([]);
    } finally {
      watch.dispose();
    }
  });
});
