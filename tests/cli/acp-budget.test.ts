import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROVIDER_NAME, GEN_AI_OPERATION_NAME_VALUE_CHAT } from '@opentelemetry/semantic-conventions/incubating';
import { agentSteps, claudeAddArgs, qwenAddArgs, testAgentsInstalled } from '../support/acp-agents';
import { receiver } from '../support/otlp-receiver';
import { type Responder, ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md).
const env = { IS_SANDBOX: '' };

beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

// Real agents start in seconds each, on a machine shared by many.
const LONG = { timeout: 300_000 };

/** A plan file running `steps` on `agent` with its budgets (`agent: { acp: NAME, maxOutputTokens, maxCostUsd }`). */
function planFor(examples: string, agent: string, budgets: string, steps: string[]): string {
  const project = join(examples, 'budget-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `budget-${agent}.yaml`);
  writeFileSync(file, [`name: Budgeted ${agent}`, 'project: ./budget-project', 'automationProfile: trusted', `agent: { acp: ${agent}, ${budgets} }`, 'definitionOfDone:', ...steps.map((s) => `  - ${s}`), ''].join('\n'));
  return file;
}

interface Shown {
  phase: string;
  processingState: string;
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number; steps: { outputTokens: number; costUsd?: number; turns: number }[] };
}
interface Approvals {
  pending: { kind: string; args: Record<string, unknown> } | null;
}

async function json<T>(args: string[], home: string): Promise<T> {
  const result = await agents([...args, '--json'], home, env);
  if (result.code !== 0 && result.code !== 3) throw new Error(`agents ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The script's replies, the first `expensive` ones that call a tool reporting `usage` (the rest the server's default). */
function costly(script: Responder, usage: { input: number; output: number }, expensive = 1): Responder {
  let left = expensive;
  return (request, index) => {
    const reply = script(request, index);
    if (!reply.toolCalls || left === 0) return reply;
    left -= 1;
    return { ...reply, usage };
  };
}

describe.skipIf(!testAgentsInstalled)("a coding agent's budgets pause the plan and ask, as our agent's do", () => {
  it('Qwen Code with maxOutputTokens: the tokens it reports pass the step\'s budget mid-turn, the turn is stopped and the plan waits for a budget approval; approving continues the step to the end', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    expect((await agents(qwenAddArgs('qwen-test', server), home, env)).code).toBe(0);
    const script = agentSteps({ notes: [(dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } })] });
    server.respondWith(costly(script, { input: 400, output: 300 }));
    const id = (await agents(['plan', 'create', planFor(examples, 'qwen-test', 'maxOutputTokens: 200', ['Write NOTES.md (notes)'])], home, env)).stdout.trim();
    const shown = await agents(['plan', 'show', id], home, env);
    expect(shown.stdout).toMatch(/budgets: +200 output tokens per step/);

    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const { pending } = await json<Approvals>(['plan', 'approvals', id], home);
    expect(pending).toMatchObject({ kind: 'budget', args: { limit: 'outputTokens', used: 300, max: 200, more: 200 } });
    const listed = await agents(['plan', 'approvals', id], home, env);
    expect(listed.stdout).toContain('used its 300 output tokens; allow 200 more?');
    const waiting = await json<Shown>(['plan', 'show', id], home);
    expect(waiting.usage?.steps[0]).toMatchObject({ outputTokens: 300 });

    const approved = await agents(['plan', 'approve', id], home, env);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    const done = await json<Shown>(['plan', 'show', id], home);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    // The turn stopped and the one that finished the step, each counted once.
    expect(done.usage?.steps[0].turns).toBe(2);
    expect(done.usage?.outputTokens).toBeGreaterThan(300);
    expect(done.usage?.outputTokens).toBeLessThan(500);
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  });

  it('Claude Code with maxCostUsd: the cost in USD its usage_update reports counts toward the plan\'s budget; the next step waits for the budget approval, and approving more dollars runs it', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    expect((await agents(claudeAddArgs('claude-test', server), home, env)).code).toBe(0);
    const script = agentSteps({
      notes: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } })],
      stamp: [(dir) => ({ name: 'Write', args: { file_path: join(dir, 'STAMP.txt'), content: 'stamped\n' } })],
    });
    // A dear first call: Claude Code prices its model's tokens itself and reports the session's total.
    server.respondWith(costly(script, { input: 1000, output: 20_000 }));
    const id = (await agents(['plan', 'create', planFor(examples, 'claude-test', 'maxCostUsd: 0.01', ['Write NOTES.md (notes)', 'Stamp the project (stamp)'])], home, env)).stdout.trim();

    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const first = await json<Shown>(['plan', 'show', id], home);
    const cost = first.usage?.costUsd ?? 0;
    expect(cost).toBeGreaterThan(0.01);
    expect(first.usage?.steps[0].costUsd).toBe(cost);
    const { pending } = await json<Approvals>(['plan', 'approvals', id], home);
    expect(pending).toMatchObject({ kind: 'budget', args: { limit: 'costUsd', used: cost, max: 0.01, more: 0.01 } });
    const shown = await agents(['plan', 'show', id], home, env);
    expect(shown.stdout).toContain(`(cost ${cost.toFixed(4)})`);
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');

    const approved = await agents(['plan', 'approve', id, '--cost', '5'], home, env);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    const done = await json<Shown>(['plan', 'show', id], home);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(done.usage?.costUsd).toBeGreaterThan(cost);
    // Step 2's cheap calls add little: the resumed session's running total is not counted again.
    expect(done.usage?.costUsd).toBeLessThan(cost * 1.5);
    expect(readFileSync(join(home, 'sandboxes', id, 'STAMP.txt'), 'utf8')).toBe('stamped\n');

    // The plan's trace has the agent's reported cost on its chat spans, beside the tokens.
    const traced = await receiver();
    try {
      const replay = await agents(['plan', 'trace', id], home, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: traced.url });
      expect(replay.code, replay.stderr).toBe(0);
      const chats = traced.spans.filter((span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_CHAT);
      expect(chats.every((span) => span.attributes[ATTR_GEN_AI_PROVIDER_NAME] === 'acp' && span.name === 'chat claude-test')).toBe(true);
      const costs = chats.map((span) => Number(span.attributes['cleveragents.usage.cost_usd'] ?? 0));
      expect(costs.reduce((a, b) => a + b, 0)).toBeCloseTo(done.usage?.costUsd ?? 0, 6);
    } finally {
      traced.server.close();
    }
  });
});
