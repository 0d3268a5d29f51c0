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

/** Codes that say no server answered at the address: nothing is listening, or the host cannot be found or reached. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** The SDK's errors for an answer it could not read: broken JSON, no finish reason, a nameless tool call, no output. */
const MALFORMED_NAMES = new Set([
  'AI_JSONParseError',
  'AI_InvalidResponseDataError',
  'AI_TypeValidationError',
  'AI_NoOutputGeneratedError',
  'AI_EmptyResponseBodyError',
]);

function causeCode(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/**
 * A reply that broke off or could not be read is worth another try, since the next one is usually
 * whole; once the retry limit is spent the executor records it as `model_output`, never as a
 * configuration or engine fault.
 */
function malformed(model: string, url: string, what: string): EngineError {
  return new EngineError(`the model server at ${url} sent a broken answer for ${model}: ${what}`, 'transient', {
    provider: 'malformed',
    whenSpent: 'model_output',
    hint: `The model server at ${url} cut its answer off or sent one that could not be read (${what.slice(0, 120)}). Retry; if it keeps happening, check the server or choose another model.`,
  });
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/**
 * Sorts a provider failure into the engine's categories: unreachable, timed out, 429 and 5xx are
 * transient (the profile's retry limit applies, and Retry-After is honoured); a cut or unreadable
 * answer is transient and then `model_output`; 401 and 403 are `auth`; an unknown model is
 * `model_config` and names the model. Anything else passes through.
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
  if (MALFORMED_NAMES.has(String((error as { name?: unknown } | null)?.name))) return malformed(model, url, (error as Error).message);
  // undici's "terminated": the body broke off after the headers.
  if (error instanceof TypeError && error.message === 'terminated') return malformed(model, url, 'the stream was cut off');
  if (isApiCallError(error)) {
    const status = error.statusCode;
    const code = causeCode(error.cause);
    if (status === undefined && code !== undefined && UNREACHABLE_CODES.has(code)) {
      return new EngineError(`cannot reach the model server at ${url} (${code}): ${error.message}`, 'transient', {
        provider: 'connection',
        code,
        hint: `model server unreachable at ${url}: start it, or change the base URL in Settings (\`agents config set baseUrl <url>\`, or AGENTS_BASE_URL).`,
      });
    }
    // The server answered and then closed the socket, or its 2xx body broke off: the stream was cut.
    if (status === undefined || status < 400) return malformed(model, url, `the stream was cut off (${code ?? status ?? 'closed'}): ${error.message}`);
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
