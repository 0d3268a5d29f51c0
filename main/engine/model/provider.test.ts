import { generateText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '../../../tests/support/scripted-model-server';
import { EngineError } from '../errors';
import { FINISH_STEP, finishStepTool } from './model-tools';
import { DeltaBatcher, runTurn } from './model-turn';
import { createLanguageModel, type ModelConfig } from './provider';
import { retryAfterMs } from './provider-errors';

const server = new ScriptedModelServer();
let config: ModelConfig;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  config = { provider: 'openai-compatible', model: 'scripted', baseUrl: server.baseUrl, apiKey: 'test-key', timeoutMs: 5_000, chunkTimeoutMs: 2_000 };
});

async function turn(overrides: Partial<ModelConfig> = {}, onText?: (delta: string) => void) {
  const merged = { ...config, ...overrides };
  return runTurn({
    model: await createLanguageModel(merged),
    config: merged,
    system: 'test',
    messages: [{ role: 'user', content: 'go' }],
    tools: { [FINISH_STEP]: finishStepTool() },
    maxOutputTokens: 100,
    onText,
  });
}

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('the provider over HTTP, against a scripted Chat Completions server', () => {
  it('streams text deltas, returns tool calls and usage, and sends the key and the tools', async () => {
    server.enqueue({ text: 'All done here.', chunkSize: 4, toolCalls: [{ name: 'finish_step', args: { summary: 'ok' } }], usage: { input: 42, output: 7 } });
    const deltas: string[] = [];
    const result = await turn({}, (d) => deltas.push(d));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('All done here.');
    expect(result.toolCalls).toEqual([{ id: expect.any(String), name: 'finish_step', input: { summary: 'ok' }, invalid: false, error: null }]);
    expect([result.inputTokens, result.outputTokens]).toEqual([42, 7]);
    const request = server.requests[0];
    expect(request.stream).toBe(true);
    expect(request.model).toBe('scripted');
    expect(request.tools?.map((t) => t.function.name)).toEqual(['finish_step']);
  });

  it('answers without streaming too (the same model object)', async () => {
    server.enqueue({ text: 'plain answer', usage: { input: 3, output: 2 } });
    const result = await generateText({ model: await createLanguageModel(config), prompt: 'hi', maxRetries: 0 });
    expect(result.text).toBe('plain answer');
    expect(result.usage.inputTokens).toBe(3);
    expect(server.requests[0].stream).toBeFalsy();
  });

  it('marks malformed tool-call arguments invalid instead of throwing', async () => {
    server.enqueue({ toolCalls: [{ name: 'finish_step', args: '{"summary": ' }, { name: 'no_such_tool', args: {} }] });
    const result = await turn();
    expect(result.toolCalls.map((c) => [c.name, c.invalid])).toEqual([
      ['finish_step', true],
      ['no_such_tool', true],
    ]);
    expect(result.toolCalls[0].error).toMatch(/JSON|input/i);
    // The SDK answers invalid calls itself, so the conversation stays well-formed.
    expect(result.messages.at(-1)?.role).toBe('tool');
  });

  it('classifies 429 as transient and keeps Retry-After', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '2' } });
    const error = await failure(turn());
    expect(error.category).toBe('transient');
    expect(error.details.retryAfterMs).toBe(2000);
    expect(server.requests).toHaveLength(1); // the SDK's own retries are off
  });

  it('classifies 500 as transient', async () => {
    server.enqueue({ status: 500 });
    expect((await failure(turn())).category).toBe('transient');
    expect(server.requests).toHaveLength(1);
  });

  it('classifies 401 and 403 as auth, with a hint naming AGENTS_API_KEY and agents config', async () => {
    for (const status of [401, 403]) {
      server.enqueue({ status, errorBody: { error: { message: 'Incorrect API key provided' } } });
      const error = await failure(turn());
      expect(error.category).toBe('auth');
      expect(error.details.hint).toMatch(/AGENTS_API_KEY/);
      expect(error.details.hint).toMatch(/agents config/);
    }
  });

  it('classifies an unknown model as model_config and names the model', async () => {
    server.knownModels = ['other-model'];
    const error = await failure(turn());
    expect(error.category).toBe('model_config');
    expect(error.message).toContain('"scripted"');
  });

  it('classifies a refused connection (a port with no server) as transient, with a hint to start it or change the base URL', async () => {
    const closed = new ScriptedModelServer();
    await closed.start();
    const url = closed.baseUrl;
    await closed.close();
    const error = await failure(turn({ baseUrl: url }));
    expect(error.category).toBe('transient');
    expect(error.message).toContain('cannot reach');
    expect(error.details.code).toBe('ECONNREFUSED');
    expect(error.details.hint).toMatch(new RegExp(`^model server unreachable at ${url.replace(/[.]/g, '\\.')}: start it, or change the base URL in Settings`));
  });

  // A server that breaks its answer is worth another try; it is never a configuration or engine fault.
  it.each([
    ['closes the socket mid-stream', 'cut', /cut off/],
    ['sends a chunk that is not JSON', 'invalid-json', /JSON/],
    ['never sends a finish reason', 'no-finish', /finish reason/],
    ['answers 200 with an HTML page', 'html', /finish reason|html|JSON/i],
    ['sends a tool call without a name', 'nameless-tool', /function\.name/],
  ] as const)('classifies a server that %s as transient, to become model_output once retries are spent', async (_what, misbehave, message) => {
    server.enqueue({ text: 'Half an answer', misbehave, toolCalls: [{ name: 'finish_step', args: { summary: 'ok' } }] });
    const error = await failure(turn());
    expect(error.category).toBe('transient');
    expect(error.details).toMatchObject({ provider: 'malformed', whenSpent: 'model_output' });
    expect(error.message).toMatch(message);
    expect(error.details.hint).toContain(server.baseUrl);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a stream that stalls, as a transient timeout', async () => {
    server.enqueue({ text: 'slow... very slow', chunkSize: 2, chunkDelayMs: 400 });
    const error = await failure(turn({ chunkTimeoutMs: 150 }));
    expect(error.category).toBe('transient');
    expect(error.message).toMatch(/did not answer in time/);
  });

  it('reads a slow stream that stays within the limits', async () => {
    server.enqueue({ text: 'slow but steady', chunkSize: 3, chunkDelayMs: 30 });
    const result = await turn();
    expect(result.text).toBe('slow but steady');
  });
});

describe('Retry-After', () => {
  it('reads seconds, an HTTP date and retry-after-ms', () => {
    expect(retryAfterMs({ 'Retry-After': '3' })).toBe(3000);
    expect(retryAfterMs({ 'retry-after-ms': '250' })).toBe(250);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe('DeltaBatcher', () => {
  it('sends many small deltas as few events, and everything on flush', async () => {
    const sent: string[] = [];
    const batcher = new DeltaBatcher((t) => sent.push(t), 50, 10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') batcher.push(ch);
    await batcher.flush();
    expect(sent.join('')).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(sent.length).toBeLessThanOrEqual(3);
  });
});
