import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_MCP_METHOD_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { type ChatRequest, type ScriptedReply, ScriptedModelServer } from '../support/scripted-model-server';
import { receiver, tree } from '../support/otlp-receiver';
import { agents, ROOT, sandboxWorkspace } from './cli-harness';

const FILESYSTEM_SERVER = join(ROOT, 'node_modules/.bin/mcp-server-filesystem');
const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.close());

/** Strategize one step; the step's first model call fails once (a retry), then writes NOTES.md through the MCP server (an approval) and finishes. */
function agent(): (request: ChatRequest) => ScriptedReply {
  let failed = false;
  return (request) => {
    if (isStrategize(request)) {
      const step = { description: 'Write NOTES.md', rationale: 'asked', acceptance: 'NOTES.md exists' };
      return { toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }], usage: { input: 120, output: 30, cached: 100 } };
    }
    if (!failed) {
      failed = true;
      return { status: 503, errorBody: { error: { message: 'overloaded' } } };
    }
    if (toolResults(request) === 0) return { text: 'Writing the notes.', toolCalls: [{ name: 'files_write_file', args: { path: 'NOTES.md', content: '# Notes\n' } }], usage: { input: 200, output: 40 } };
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md.' } }], usage: { input: 260, output: 12 } };
  };
}

describe('the trace of an agent plan', () => {
  it('has the model calls, the MCP call, the approval and the retry, across the processes that ran it, as `plan trace` rebuilds them', { timeout: 240_000 }, async () => {
    const live = await receiver();
    const { home, examples } = sandboxWorkspace();
    const env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: live.url };
    expect((await agents(['mcp', 'add', 'files', '--', FILESYSTEM_SERVER, '.'], home)).code).toBe(0);
    server.reset();
    server.respondWith(agent());
    const file = join(examples, 'agent-notes.yaml');
    writeFileSync(file, 'name: agent-notes\nproject: ./demo-project\nagent: true\ndefinitionOfDone: |\n  - NOTES.md exists\nautomationProfile:\n  base: supervised\n  autoRetryTransient: 2\n');
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3); // the proposed tree waits
    expect((await agents(['plan', 'approve', id], home, env)).code).toBe(3); // the MCP call waits
    const done = await agents(['plan', 'approve', id], home, env);
    expect(done.code, done.stderr).toBe(0);

    const root = live.spans.find((s) => s.parentSpanId === '')!;
    expect(root.name).toBe('invoke_workflow agent-notes');
    expect(new Set(live.spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    const chats = live.spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);
    const plan = live.spans.find((s) => s.name === 'plan')!;
    const strategize = chats.find((c) => c.parentSpanId === plan.spanId)!;
    expect(strategize).toMatchObject({
      name: 'chat scripted',
      attributes: {
        [ATTR_GEN_AI_PROVIDER_NAME]: 'openai-compatible',
        [ATTR_GEN_AI_REQUEST_MODEL]: 'scripted',
        [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 120,
        [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 30,
        [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 100,
      },
    });
    expect(strategize.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toBeDefined();
    // The step as often as it was started: the attempt the retry ended, the one that stopped for the approval, the one that finished.
    const steps = live.spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(steps.length).toBe(3);
    expect(steps.every((s) => s.attributes[ATTR_GEN_AI_AGENT_NAME] === 'cleveragents' && s.parentSpanId === root.spanId)).toBe(true);
    const stepIds = new Set(steps.map((s) => s.spanId));
    // The step's calls: the one the 503 failed, then the two that answered.
    const stepChats = chats.filter((c) => stepIds.has(c.parentSpanId));
    expect(stepChats.length).toBe(3);
    const failed = stepChats.filter((c) => c.status === 2);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ name: 'chat scripted', attributes: { [ATTR_ERROR_TYPE]: 'transient', [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 0 } });
    expect(chats.filter((c) => c.status === 2 || ATTR_ERROR_TYPE in c.attributes)).toEqual(failed);
    const mcp = live.spans.find((s) => s.name === 'execute_tool files.write_file')!;
    expect(stepIds.has(mcp.parentSpanId)).toBe(true);
    expect(mcp.attributes).toMatchObject({ [ATTR_GEN_AI_TOOL_NAME]: 'files.write_file', [ATTR_GEN_AI_TOOL_TYPE]: 'extension', [ATTR_MCP_METHOD_NAME]: 'tools/call', 'cleveragents.mcp.server': 'files' });
    expect(ATTR_GEN_AI_TOOL_CALL_ARGUMENTS in mcp.attributes).toBe(false);
    const events = live.spans.flatMap((s) => s.events);
    expect(events).toEqual(expect.arrayContaining(['cleveragents.approval.requested', 'cleveragents.approval.resolved', 'cleveragents.retry', 'cleveragents.file.changed', 'cleveragents.checkpoint']));

    const later = await receiver();
    const replay = await agents(['plan', 'trace', id], home, { OTEL_EXPORTER_OTLP_ENDPOINT: later.url });
    expect(replay.code, replay.stderr).toBe(0);
    expect(tree(later.spans)).toEqual(tree(live.spans));
  });
});
