import type { Provider } from '../../../shared/agent';
import { ValidationError } from '../../../shared/errors';

// Kept apart from the AI SDK, which the CLI loads only when a model runs: it costs a second at start.

/** Everything needed to reach one model; resolved from the plan, the environment and the settings. */
export interface ModelConfig {
  provider: Provider;
  model: string;
  /** Null: the provider's default address (OpenAI, Ollama on this machine, Anthropic). */
  baseUrl: string | null;
  apiKey: string | null;
  /** Longest wait for a whole model call, and between two streamed chunks. */
  timeoutMs: number;
  chunkTimeoutMs: number;
}

/**
 * A model this process cannot use: none configured, no key for its provider, no address. Bad input
 * where it is asked for (exit 2, one line naming the setting); category `model_config` in a run.
 */
export class ModelSettingError extends ValidationError {
  constructor(field: string, problem: string) {
    super(field, problem);
  }

  /** What the operator changes, for the failure's hint. */
  get hint(): string {
    return `The plan's model cannot be used from this process: ${this.message}`;
  }
}

/** Providers that refuse a request without an API key. */
export const PROVIDERS_NEEDING_KEY: readonly Provider[] = ['openai', 'anthropic'];

export const DEFAULT_BASE_URLS: Record<Exclude<Provider, 'openai-compatible'>, string> = {
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/** Where requests go; openai-compatible has no default, so it needs a base URL. */
export function baseUrlOf(config: Pick<ModelConfig, 'provider' | 'baseUrl'>): string {
  if (config.baseUrl) return config.baseUrl;
  if (config.provider === 'openai-compatible') {
    throw new ModelSettingError('AGENTS_BASE_URL', 'openai-compatible needs a base URL: set AGENTS_BASE_URL or run `agents config set baseUrl <url>`');
  }
  return DEFAULT_BASE_URLS[config.provider];
}

export function describeModel(config: Pick<ModelConfig, 'provider' | 'model'>): string {
  return `${config.provider}:${config.model}`;
}
