import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { ScriptedModelServer, transcript } from '../../../tests/support/scripted-model-server';
import { ApprovalPending, EngineError } from '../errors';
import type { StepContext } from '../run/runtime-execute-actor';
import { InMemoryInvocationLog, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { ToolRegistry, ToolRunner } from '../run/tool-runner';
import { registerBuiltinTools } from '../tools';
import { cleanupTempDirs, tempDir } from '../tools/test-support';
import { ModelAgent } from './model-agent';
import { createLanguageModel, type ModelConfig } from './provider';
import { parseToolLoopState } from './tool-loop';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
afterEach(cleanupTempDirs);

let sandbox: string;
let lifecycle: ReturnType<typeof inMemoryLifecycle>;
let plan: Plan;
let agent: ModelAgent;
const decision = (planId: string): StrategyDecision => {
  const now = new Date().toISOString();
  return { id: 'D1', planId, parentId: null, type: 'strategy_choice', order: 1, description: 'Write a and run the check', rationale: 'r', toolCalls: [], status: 'running', createdAt: now, updatedAt: now };
};

beforeEach(async () => {
  server.reset();
  sandbox = realpathSync(tempDir('agents-model-agent-'));
  lifecycle = inMemoryLifecycle();
  plan = await lifecycle.createPlan({ name: 'model', definitionOfDone: ['Write a and run the check'], automationProfile: BUILTIN_PROFILES.supervised });
  const config: ModelConfig = { provider: 'openai-compatible', model: 'scripted', baseUrl: server.baseUrl, apiKey: 'k', timeoutMs: 5_000, chunkTimeoutMs: 2_000 };
  const toolRunner = new ToolRunner(registerBuiltinTools(new ToolRegistry()), new InMemoryInvocationLog());
  agent = new ModelAgent({ model: await createLanguageModel(config), config, spec: { model: null, maxTurnsPerStep: 10, maxOutputTokens: 10_000 }, toolRunner, lifecycle, sandboxRoot: sandbox });
});

/** A step's context whose shell calls wait for approval until `approved` is set, as the approval gate has them. */
function stepContext(toolRunner: ToolRunner, gate: { approved: boolean }): StepContext {
  return {
    runCall: async (call, callIndex) => {
      if (call.tool === 'shell.run' && !gate.approved) throw new ApprovalPending(`approval-${callIndex}`);
      return toolRunner.execute(call, { planId: plan.id, decisionId: 'D1', sandboxRoot: sandbox });
    },
    ask: async () => null,
    emit: () => undefined,
    flush: async () => undefined,
    index: 0,
    total: 1,
    firstCall: 0,
  };
}

const runner = () => new ToolRunner(registerBuiltinTools(new ToolRegistry()), new InMemoryInvocationLog());

describe('a model step that stops for an approval', () => {
  it('saves its conversation on the plan, which reads back by its schema and goes on at the waiting call without asking the model again', async () => {
    server.enqueue({ toolCalls: [{ name: 'file_write', args: { path: 'a.txt', content: 'A' } }, { name: 'shell_run', args: { command: 'cat a.txt' } }], usage: { input: 10, output: 5 } });
    const gate = { approved: false };
    const step = agent.stepRunner(plan);
    await expect(step.run(decision(plan.id), stepContext(runner(), gate))).rejects.toBeInstanceOf(ApprovalPending);

    const saved = (await lifecycle.getPlan(plan.id)).agentSession;
    expect(saved?.decisionId).toBe('D1');
    // As SQLite keeps it: JSON.
    const state = await parseToolLoopState(JSON.parse(JSON.stringify(saved?.state)), 'state');
    expect(state.pending.map((c) => c.name)).toEqual(['shell_run']);
    expect(state.results.map((r) => [r.name, r.isError])).toEqual([['file_write', false]]);
    expect([state.callIndex, state.turns, state.outputTokens]).toEqual([1, 1, 5]);
    expect(readFileSync(path.join(sandbox, 'a.txt'), 'utf8')).toBe('A');

    gate.approved = true;
    server.enqueue({ toolCalls: [{ name: 'finish_step', args: { summary: 'wrote a and checked it' } }] });
    await step.run(decision(plan.id), stepContext(runner(), gate));
    expect(server.requests).toHaveLength(2);
    const told = transcript(server.requests[1]);
    expect(told).toContain('"path":"a.txt"');
    expect(told).toMatch(/tool: .*stdout.*A/s);
    const after = await lifecycle.getPlan(plan.id);
    expect(after.agentSession ?? null).toBeNull();
    expect(after.usage?.steps.find((s) => s.decisionId === 'D1')).toMatchObject({ turns: 2, summary: 'wrote a and checked it' });
  });

  it('a saved conversation that does not read back fails the step with one line naming the field, and the next run starts the step afresh', async () => {
    const state = { messages: [{ role: 'robot', content: 'hello' }], pending: [], results: [], callIndex: 0, turns: 1, outputTokens: 3, madeCalls: true };
    await lifecycle.update(plan.id, { agentSession: { decisionId: 'D1', state } });
    const step = agent.stepRunner(plan);
    const error = await step.run(decision(plan.id), stepContext(runner(), { approved: true })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).category).toBe('internal');
    expect((error as EngineError).message).toMatch(/^step "Write a and run the check": its saved conversation cannot be continued \(agentSession\.state\.messages\.0[^\n]*\)$/);
    expect(server.requests).toHaveLength(0);
    expect((await lifecycle.getPlan(plan.id)).agentSession ?? null).toBeNull();

    server.enqueue({ toolCalls: [{ name: 'finish_step', args: { summary: 'done' } }] });
    await step.run(decision(plan.id), stepContext(runner(), { approved: true }));
    expect(server.requests[0].messages.find((m) => m.role === 'user')?.content).toContain('Write a and run the check');
  });
});
