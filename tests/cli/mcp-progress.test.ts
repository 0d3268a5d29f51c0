// A plan's MCP calls report progress and log messages: the reference "everything" server's long
// operation, under a time limit shorter than the operation, finishes because it keeps reporting, and
// its progress is in `--stream` and the plan's events; the probe server's log message is in the log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { type ChatRequest, type ScriptedReply, ScriptedModelServer } from '../support/scripted-model-server';
import { agents, ROOT, sandboxWorkspace } from './cli-harness';

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

/** One step: the long operation (3 s, 6 reports), then a log message, then finish. */
function agent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) {
    return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Run the long operation', rationale: 'asked', acceptance: 'it completed' }] } }] };
  }
  const results = toolResults(request);
  if (results === 0) return { toolCalls: [{ name: 'everything_trigger-long-running-operation', args: { duration: 3, steps: 6 } }] };
  if (results === 1) return { toolCalls: [{ name: 'probe_log', args: { level: 'warning', text: 'the disk is almost full' } }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Ran it.' } }] };
}

describe("a plan's MCP call that reports progress", () => {
  it('is not cut off by its time limit while progress comes, shows it in --stream, and logs the server\'s messages', { timeout: 180_000 }, async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'progress.yaml');
    const servers = `    everything: { command: ${JSON.stringify(EVERYTHING)}, args: [], timeoutMs: 1500 }\n    probe: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(PROBE)}] }\n`;
    writeFileSync(file, `name: progress\nproject: ./demo-project\nagent: true\nautomationProfile: full-auto\ndefinitionOfDone: |\n  - It ran\nmcp:\n  servers:\n${servers}`);
    server.respondWith(agent);
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id, '--stream'], home, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^everything\.trigger-long-running-operation: progress \d\/6 \(\d+%\)/m);
    expect(run.stdout).toMatch(/^everything\.trigger-long-running-operation ok in /m);
    expect(run.stdout).toMatch(/^probe warning \(probe\): the disk is almost full$/m);
    // The operation's answer reached the model whole.
    const answer = server.requests.filter((r) => !isStrategize(r))[1];
    expect(String(answer.messages.filter((m) => m.role === 'tool').at(-1)?.content)).toContain('Long running operation completed');

  });
});
