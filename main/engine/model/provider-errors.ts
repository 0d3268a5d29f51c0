import type { APICallError } from 'ai';
import { EngineError } from '../errors';
import { baseUrlOf, describeModel, type ModelConfig } from './model-config';

const AUTH_HINT =
  'The model provider refused the API key. Set AGENTS_API_KEY, or store a key with `agents config set apiKey <key>` (the console: Settings), then retry.';

/** Retry-After as seconds or an HTTP date, and the non-standard retry-after-ms; in milliseconds. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower['retry-after-ms']);
  if (lower['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function providerMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  const fromData = typeof data?.error?.message === 'string' ? data.error.message : undefined;
  return (fromData ?? error.responseBody ?? error.message).toString().slice(0, 300);
}

// The SDK's errors are told apart by name, as its own isInstance checks do, so this module does not load the SDK.
const named = (error: unknown, name: string): boolean => (error as { name?: unknown } | null)?.name === name;
const isApiCallError = (error: unknown): error is APICallError => named(error, 'AI_APICallError');

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/**
 * Sorts a provider failure into the engine's categories: unreachable, timed out, 429 and 5xx are
 * transient (the profile's retry limit applies, and Retry-After is honoured); 401 and 403 are
 * `auth`; an unknown model is `model_config` and names the model. Anything else passes through.
 */
export function classifyProviderError(error: unknown, config: ModelConfig): unknown {
  if (error instanceof EngineError) return error;
  const model = describeModel(config);
  let url = config.baseUrl ?? '';
  try {
    url = baseUrlOf(config);
  } catch {
    // The URL only decorates the message.
  }
  if (named(error, 'AI_RetryError')) return classifyProviderError((error as { lastError?: unknown }).lastError, config);
  if (named(error, 'AI_LoadAPIKeyError')) {
    return new EngineError(`no API key for ${model}: ${(error as Error).message}`, 'auth', { hint: AUTH_HINT });
  }
  if (isTimeout(error)) {
    return new EngineError(`the model ${model} did not answer in time (${config.timeoutMs} ms in all, ${config.chunkTimeoutMs} ms between chunks)`, 'transient', {
      provider: 'timeout',
    });
  }
  if (isApiCallError(error)) {
    const status = error.statusCode;
    if (status === undefined) {
      const cause = (error.cause as { code?: unknown; cause?: { code?: unknown } } | undefined) ?? {};
      const code = String(cause.code ?? cause.cause?.code ?? 'unreachable');
      return new EngineError(`cannot reach the model server at ${url} (${code}): ${error.message}`, 'transient', { provider: 'connection', code });
    }
    const message = providerMessage(error);
    if (status === 429) {
      const after = retryAfterMs(error.responseHeaders);
      return new EngineError(`the model provider is rate limiting (429)${after !== undefined ? `, retry after ${after} ms` : ''}: ${message}`, 'transient', {
        provider: 'rate_limit',
        status,
        ...(after !== undefined ? { retryAfterMs: after } : {}),
      });
    }
    if (status >= 500 || status === 408) {
      return new EngineError(`the model provider failed (${status}): ${message}`, 'transient', { provider: 'server', status });
    }
    if (status === 401 || status === 403) {
      return new EngineError(`the model provider refused the credentials for ${model} (${status}): ${message}`, 'auth', { status, hint: AUTH_HINT });
    }
    if (status === 404 || /model/i.test(message) && /not (found|exist)|unknown|does not exist/i.test(message)) {
      return new EngineError(`the provider at ${url} does not know the model "${config.model}" (${status}): ${message}`, 'model_config', {
        status,
        hint: `Check the model name "${config.model}" (for Ollama: ollama pull ${config.model}), or choose another with AGENTS_MODEL or \`agents config set model provider:model\`.`,
      });
    }
    return new EngineError(`the model provider refused the request for ${model} (${status}): ${message}`, 'model_config', { status });
  }
  return error;
}
