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

  it("refuses a plan with maxCostUsd while no price is set, and the console's plan view says why", () => {
    const plan = { ...spec, model: 'ollama:qwen2.5-coder', baseUrl: null, maxCostUsd: 2.5 };
    const settings = store();
    expect(() => resolveModelConfig(plan, {}, settings)).toThrow(/^agent\.maxCostUsd: the plan's cost budget of \$2\.50 cannot be checked without a price: run `agents config set priceInput N`/);
    expect(planModelView(plan, {}, settings)).toMatchObject({ usable: false, problem: expect.stringContaining('without a price') });
    settings.patch({ price: { inputPerMTok: 3, outputPerMTok: 15 } });
    expect(planModelView(plan, {}, settings)).toMatchObject({ usable: true, problem: null });
    // Without a cost budget, no price is needed.
    settings.patch({ price: null });
    expect(planModelView({ ...plan, maxCostUsd: undefined }, {}, settings).usable).toBe(true);
  });

  describe('sends a key only to the address its own source names', () => {
    const gpuBox = { ...spec, model: 'openai-compatible:m', baseUrl: 'http://gpu-box:8000/v1' };
    const openRouter = 'https://openrouter.ai/api/v1';

    it("refuses a plan recorded at one server when this process's key is for another, naming both addresses", () => {
      const env = { AGENTS_MODEL: 'openai-compatible:x', AGENTS_BASE_URL: openRouter, AGENTS_API_KEY: 'sk-or-1' };
      expect(() => resolveModelConfig(gpuBox, env, store())).toThrow(
        "AGENTS_BASE_URL: the plan's model is at http://gpu-box:8000/v1, but AGENTS_API_KEY is for https://openrouter.ai/api/v1: set AGENTS_BASE_URL to the plan's address to send that key there, or run where no key is set for it",
      );
      // A key with no address of its own has none for openai-compatible either.
      expect(() => resolveModelConfig(gpuBox, { AGENTS_API_KEY: 'sk-1' }, store())).toThrow(/^AGENTS_BASE_URL: .*gpu-box.*AGENTS_API_KEY is for no address/);
      expect(planModelView(gpuBox, env, store())).toMatchObject({ usable: false, problem: expect.stringContaining('http://gpu-box:8000/v1') });
    });

    it('refuses an address pinned from the settings after the settings are reverted', () => {
      const settings = store();
      settings.patch({ model: 'openai:gpt-4.1', baseUrl: 'http://attacker:8000/v1', apiKey: 'sk-settings' });
      const plan = recordModel(spec, {}, settings);
      expect(plan.baseUrl).toBe('http://attacker:8000/v1');
      settings.patch({ baseUrl: '' });
      expect(() => resolveModelConfig(plan, {}, settings)).toThrow(
        /^settings\.baseUrl: the plan's model is at http:\/\/attacker:8000\/v1, but the settings' apiKey is for https:\/\/api\.openai\.com\/v1: run `agents config set baseUrl`/,
      );
    });

    it('does not send a key meant for AGENTS_BASE_URL to the default address of an openai: plan', () => {
      const plan = { ...spec, model: 'openai:gpt-4.1', baseUrl: 'https://api.openai.com/v1' };
      const env = { AGENTS_BASE_URL: 'https://proxy.corp.example/v1', AGENTS_API_KEY: 'sk-corp' };
      expect(() => resolveModelConfig(plan, env, store())).toThrow(/^AGENTS_BASE_URL: .*at https:\/\/api\.openai\.com\/v1, but AGENTS_API_KEY is for https:\/\/proxy\.corp\.example\/v1/);
      expect(() => resolveModelConfig({ ...plan, baseUrl: undefined }, env, store())).toThrow(/proxy\.corp\.example/);
    });

    it('sends the key to the same address, however its trailing slash is written; the settings key where the environment\'s belongs elsewhere', () => {
      const env = { AGENTS_MODEL: 'openai-compatible:x', AGENTS_BASE_URL: 'http://GPU-box:8000/v1/', AGENTS_API_KEY: 'sk-gpu' };
      expect(resolveModelConfig(gpuBox, env, store())).toMatchObject({ baseUrl: 'http://gpu-box:8000/v1', apiKey: 'sk-gpu' });
      const settings = store();
      settings.patch({ baseUrl: 'http://gpu-box:8000/v1', apiKey: 'sk-settings' });
      expect(resolveModelConfig(gpuBox, { AGENTS_BASE_URL: openRouter, AGENTS_API_KEY: 'sk-or' }, settings).apiKey).toBe('sk-settings');
    });

    it('runs a keyless local server with no key when the process has none', () => {
      expect(resolveModelConfig(gpuBox, { AGENTS_BASE_URL: openRouter }, store())).toMatchObject({ baseUrl: 'http://gpu-box:8000/v1', apiKey: null });
      expect(resolveModelConfig({ ...spec, model: 'ollama:m', baseUrl: 'http://127.0.0.1:11434/v1' }, {}, store()).apiKey).toBeNull();
    });
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
