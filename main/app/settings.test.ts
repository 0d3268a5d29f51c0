import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentSpecOf } from '../../shared/agent';
import { planModelView, recordModel, resolveModelConfig, SettingsStore } from './settings';

const store = () => new SettingsStore(join(mkdtempSync(join(tmpdir(), 'agents-settings-')), 'settings.json'));
const spec = agentSpecOf(true)!;

describe('which model a plan uses', () => {
  it('takes the plan file first, then the environment, then the settings file', () => {
    const settings = store();
    settings.patch({ model: 'ollama:from-settings', apiKey: 'settings-key' });
    const env = { AGENTS_MODEL: 'openai:from-env', AGENTS_API_KEY: 'env-key' };
    expect(resolveModelConfig({ ...spec, model: 'openai:from-plan' }, env, settings)).toMatchObject({ provider: 'openai', model: 'from-plan', apiKey: 'env-key' });
    expect(resolveModelConfig(spec, env, settings)).toMatchObject({ provider: 'openai', model: 'from-env' });
    expect(resolveModelConfig(spec, {}, settings)).toMatchObject({ provider: 'ollama', model: 'from-settings', apiKey: 'settings-key' });
  });

  it('keeps the model name after the first colon (Ollama tags)', () => {
    expect(resolveModelConfig(spec, { AGENTS_MODEL: 'ollama:qwen2.5-coder:7b' }, store())).toMatchObject({ provider: 'ollama', model: 'qwen2.5-coder:7b' });
  });

  it('knows the default addresses of OpenAI, Ollama and Anthropic; openai-compatible needs AGENTS_BASE_URL', async () => {
    const { baseUrlOf } = await import('../engine/model/model-config');
    const at = (ref: string, env: Record<string, string> = {}) => baseUrlOf(resolveModelConfig(spec, { AGENTS_MODEL: ref, AGENTS_API_KEY: 'k', ...env }, store()));
    expect(at('openai:gpt-4.1-mini')).toBe('https://api.openai.com/v1');
    expect(at('ollama:llama3.2')).toBe('http://127.0.0.1:11434/v1');
    expect(at('anthropic:claude-sonnet-4-5')).toBe('https://api.anthropic.com/v1');
    expect(at('openai-compatible:m', { AGENTS_BASE_URL: 'http://127.0.0.1:8080/v1' })).toBe('http://127.0.0.1:8080/v1');
    expect(() => at('openai-compatible:m')).toThrow(/AGENTS_BASE_URL/);
  });

  it('names the setting when there is no model, or a malformed one', () => {
    expect(() => resolveModelConfig(spec, {}, store())).toThrow(/^agent\.model: .*AGENTS_MODEL=provider:model.*agents config set model/);
    expect(() => resolveModelConfig(spec, { AGENTS_MODEL: 'gpt-4' }, store())).toThrow(/^AGENTS_MODEL: /);
  });

  it("runs the plan's recorded model and base URL, whatever this process's environment names", () => {
    const recorded = recordModel(spec, { AGENTS_MODEL: 'openai-compatible:m', AGENTS_BASE_URL: 'http://127.0.0.1:9/v1' }, store());
    expect(recorded).toMatchObject({ model: 'openai-compatible:m', baseUrl: 'http://127.0.0.1:9/v1' });
    expect(resolveModelConfig(recorded, { AGENTS_MODEL: 'ollama:other', AGENTS_BASE_URL: 'http://127.0.0.1:7/v1' }, store())).toMatchObject({
      provider: 'openai-compatible',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    expect(resolveModelConfig(recorded, {}, store())).toMatchObject({ model: 'm', baseUrl: 'http://127.0.0.1:9/v1', apiKey: null });
  });

  it('sends a plan pinned to a provider to its own address: AGENTS_BASE_URL for another model does not redirect it', () => {
    const env = { AGENTS_MODEL: 'openai-compatible:m', AGENTS_BASE_URL: 'http://127.0.0.1:9/v1' };
    expect(recordModel({ ...spec, model: 'ollama:qwen2.5-coder:7b' }, env, store())).toMatchObject({ baseUrl: 'http://127.0.0.1:11434/v1' });
    // A base URL given for that provider's model does apply.
    const settings = store();
    settings.patch({ model: 'ollama:x', baseUrl: 'http://10.0.0.5:11434/v1' });
    expect(recordModel({ ...spec, model: 'ollama:qwen2.5-coder:7b' }, env, settings)).toMatchObject({ baseUrl: 'http://10.0.0.5:11434/v1' });
  });

  it('refuses a model whose provider needs a key this process does not have, naming AGENTS_API_KEY; a key for another provider is not sent', () => {
    const plan = { ...spec, model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1' };
    expect(() => resolveModelConfig(plan, {}, store())).toThrow(/^AGENTS_API_KEY: .*anthropic/);
    expect(() => resolveModelConfig(plan, { AGENTS_MODEL: 'openai:gpt-4.1', AGENTS_API_KEY: 'sk-openai' }, store())).toThrow(/AGENTS_API_KEY/);
    expect(resolveModelConfig(plan, { AGENTS_API_KEY: 'sk-ant' }, store()).apiKey).toBe('sk-ant');
    expect(planModelView(plan, {}, store())).toMatchObject({ model: 'anthropic:claude-sonnet-4-5', usable: false, problem: expect.stringContaining('AGENTS_API_KEY') });
    expect(planModelView(plan, { AGENTS_API_KEY: 'sk-ant' }, store())).toEqual({ model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1', usable: true, problem: null });
  });

  it('reads the model timeout from AGENTS_MODEL_TIMEOUT_MS', () => {
    expect(resolveModelConfig(spec, { AGENTS_MODEL: 'ollama:m', AGENTS_MODEL_TIMEOUT_MS: '1500' }, store()).timeoutMs).toBe(1500);
  });
});

describe('agent: in a plan file', () => {
  it('defaults to 20 turns and 16000 output tokens per step', () => {
    expect(agentSpecOf(true)).toEqual({ model: null, maxTurnsPerStep: 20, maxOutputTokens: 16000 });
    expect(agentSpecOf({ model: 'ollama:m', maxTurnsPerStep: 5 })).toEqual({ model: 'ollama:m', maxTurnsPerStep: 5, maxOutputTokens: 16000 });
    expect(agentSpecOf(undefined)).toBeUndefined();
  });
});
