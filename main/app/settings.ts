import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { type AgentSpec, ModelRefSchema, parseModelRef, PriceSchema, type SettingsPatch, type SettingsView } from '../../shared/agent';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { baseUrlOf, type ModelConfig } from '../engine/model/model-config';

/** The settings file in the data directory (mode 0600: it may hold an API key). */
export const SettingsFileSchema = z
  .object({
    model: ModelRefSchema.optional(),
    baseUrl: z.string().optional(),
    /** Plain, as the CLI stores it; the desktop app stores `apiKeyEncrypted` instead. */
    apiKey: z.string().optional(),
    /** Base64 of Electron safeStorage's ciphertext; only the desktop app can read it. */
    apiKeyEncrypted: z.string().optional(),
    price: PriceSchema.optional(),
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** Encrypts the API key at rest; the desktop app backs it with Electron's safeStorage. */
export interface SecretCodec {
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_CHUNK_TIMEOUT_MS = 60_000;

/** Keys of `agents config`, and how each one is read from the command line. */
export const CONFIG_KEYS = ['model', 'baseUrl', 'apiKey', 'priceInput', 'priceOutput', 'timeoutMs'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

export class SettingsStore {
  constructor(
    readonly file: string,
    private readonly codec: SecretCodec | null = null,
  ) {}

  read(): SettingsFile {
    if (!existsSync(this.file)) return {};
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      throw new ValidationError('settings', `${this.file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    return parseOrThrow(SettingsFileSchema, raw, 'settings');
  }

  /** Written whole to a temporary file and renamed, so a crash never leaves half a file; 0600. */
  write(settings: SettingsFile): void {
    const valid = parseOrThrow(SettingsFileSchema, settings, 'settings');
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(valid, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }

  /** The stored key, decrypted where this process can; null when there is none it can read. */
  apiKey(settings = this.read()): string | null {
    if (settings.apiKeyEncrypted && this.codec) return this.codec.decrypt(settings.apiKeyEncrypted);
    return settings.apiKey ?? null;
  }

  /** Applies a change from the console or the CLI; an empty string clears a field. */
  patch(patch: SettingsPatch & { timeoutMs?: number }): SettingsFile {
    const next: SettingsFile = { ...this.read() };
    if (patch.timeoutMs !== undefined) next.timeoutMs = patch.timeoutMs;
    if (patch.model !== undefined) next.model = patch.model || undefined;
    if (patch.baseUrl !== undefined) next.baseUrl = patch.baseUrl || undefined;
    if (patch.apiKey !== undefined) {
      delete next.apiKey;
      delete next.apiKeyEncrypted;
      if (patch.apiKey !== '') {
        if (this.codec) next.apiKeyEncrypted = this.codec.encrypt(patch.apiKey);
        else next.apiKey = patch.apiKey;
      }
    }
    if (patch.price !== undefined) next.price = patch.price ?? undefined;
    this.write(next);
    return next;
  }

  /** What the console may see: whether a key is set, never the key. */
  view(env: NodeJS.ProcessEnv): SettingsView {
    const s = this.read();
    const envModel = nonEmpty(env.AGENTS_MODEL);
    const envKey = nonEmpty(env.AGENTS_API_KEY);
    const stored = Boolean(s.apiKey || s.apiKeyEncrypted);
    return {
      model: s.model ?? null,
      baseUrl: s.baseUrl ?? null,
      apiKeySet: stored,
      price: s.price ?? null,
      effective: {
        model: envModel ?? s.model ?? null,
        modelSource: envModel ? 'env' : s.model ? 'settings' : 'none',
        baseUrl: nonEmpty(env.AGENTS_BASE_URL) ?? s.baseUrl ?? null,
        apiKeySource: envKey ? 'env' : stored ? 'settings' : 'none',
      },
    };
  }
}

const NO_MODEL =
  'an agent plan needs a model: set agent.model in the plan file, the environment variable AGENTS_MODEL=provider:model, or `agents config set model provider:model`';

/**
 * The model a plan uses, in order of precedence: the plan's `agent.model`, then the environment
 * (AGENTS_MODEL, AGENTS_BASE_URL, AGENTS_API_KEY), then the settings file. Throws a one-line
 * ValidationError naming the missing setting.
 */
export function resolveModelConfig(spec: AgentSpec, env: NodeJS.ProcessEnv, settings: SettingsStore): ModelConfig {
  const stored = settings.read();
  const envModel = nonEmpty(env.AGENTS_MODEL);
  const ref = spec.model ?? envModel ?? stored.model;
  if (!ref) throw new ValidationError('agent.model', NO_MODEL);
  const field = spec.model ? 'agent.model' : envModel ? 'AGENTS_MODEL' : 'settings.model';
  const parsed = ModelRefSchema.safeParse(ref);
  if (!parsed.success) throw new ValidationError(field, `"${ref}" ${parsed.error.issues[0]?.message ?? 'is not provider:model'}`);
  const { provider, model } = parseModelRef(ref);
  const timeout = Number(env.AGENTS_MODEL_TIMEOUT_MS);
  const timeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout : (stored.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const config: ModelConfig = {
    provider,
    model,
    baseUrl: nonEmpty(env.AGENTS_BASE_URL) ?? stored.baseUrl ?? null,
    apiKey: nonEmpty(env.AGENTS_API_KEY) ?? settings.apiKey(stored),
    timeoutMs,
    chunkTimeoutMs: Math.min(timeoutMs, DEFAULT_CHUNK_TIMEOUT_MS),
  };
  baseUrlOf(config);
  return config;
}

/** `agents config set KEY VALUE` as a settings change. */
export function configPatch(key: string, value: string, current: SettingsFile): SettingsPatch & { timeoutMs?: number } {
  switch (key as ConfigKey) {
    case 'model':
      if (value !== '') parseOrThrow(ModelRefSchema, value, 'model');
      return { model: value };
    case 'baseUrl':
      return parseOrThrow(z.object({ baseUrl: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]) }), { baseUrl: value });
    case 'apiKey':
      return { apiKey: value };
    case 'priceInput':
    case 'priceOutput': {
      if (value === '') return { price: null };
      const n = parseOrThrow(z.coerce.number().nonnegative(), value, key);
      const price = current.price ?? { inputPerMTok: 0, outputPerMTok: 0 };
      return { price: key === 'priceInput' ? { ...price, inputPerMTok: n } : { ...price, outputPerMTok: n } };
    }
    case 'timeoutMs':
      return { timeoutMs: parseOrThrow(z.coerce.number().int().positive(), value, key) };
    default:
      throw new ValidationError('key', `unknown setting "${key}"; the settings are ${CONFIG_KEYS.join(', ')}`);
  }
}
