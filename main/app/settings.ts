import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import {
  type AgentSpec,
  ModelRefSchema,
  parseModelRef,
  type PlanModelView,
  PriceSchema,
  type Provider,
  type SettingsPatch,
  type SettingsView,
  usd,
} from '../../shared/agent';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { McpConfigSchema, shownUrl } from '../../shared/mcp';
import { AcpSettingsSchema } from '../../shared/acp';
import { redactText } from '../../shared/redact';
import { resolveDatabaseUrl } from '../persistence/postgres/database-url';
import { parseOtlpHeaders } from './telemetry/otlp';
import { baseUrlOf, DEFAULT_BASE_URLS, describeModel, type ModelConfig, ModelSettingError, PROVIDERS_NEEDING_KEY } from '../engine/model/model-config';

/**
 * Where notifications go: a webhook (off without one), the desktop app's and the terminal's (on
 * unless false); and which kinds are sent anywhere (shared/attention.ts, each on unless false).
 */
export const NotifySettingsSchema = z
  .object({
    webhook: z.url({ protocol: /^https?$/ }).optional(),
    desktop: z.boolean().optional(),
    terminal: z.boolean().optional(),
    approval: z.boolean().optional(),
    failed: z.boolean().optional(),
    checksFailed: z.boolean().optional(),
    ready: z.boolean().optional(),
  })
  .strict();
export type NotifySettings = z.infer<typeof NotifySettingsSchema>;

/** The settings file in the data directory (mode 0600: it may hold an API key); built at its first parse. */
export const SettingsFileSchema = z.lazy(() =>
  z
    .object({
    model: ModelRefSchema.optional(),
    baseUrl: z.string().optional(),
    /** Plain, as the CLI stores it; the desktop app stores `apiKeyEncrypted` instead. */
    apiKey: z.string().optional(),
    /** Base64 of Electron safeStorage's ciphertext; only the desktop app can read it. */
    apiKeyEncrypted: z.string().optional(),
    price: PriceSchema.optional(),
    timeoutMs: z.number().int().positive().optional(),
    /** MCP servers every agent plan may use (`agents mcp add`). */
    mcp: McpConfigSchema.optional(),
    /** Coding agents plans may run over the Agent Client Protocol (`agents acp add`), and where the built-in ones are installed. */
    acp: AcpSettingsSchema.optional(),
    /** Team mode: the team's PostgreSQL database (`postgresql://...`). */
    database: z.string().optional(),
    /** The name answers given here are recorded under (default: the OS user). */
    operator: z.string().optional(),
    /** Traces: the OTLP/HTTP collector's base address, its headers (`k=v,k2=v2`, secrets), a trace viewer's address with `{traceId}`, and whether prompts and results go too. */
    otlpEndpoint: z.string().optional(),
    otlpHeaders: z.string().optional(),
    traceUrl: z.string().optional(),
    otlpCaptureContent: z.boolean().optional(),
    /** Notifications when a plan needs its operator (README, "Notifications"); each on unless set to false. */
    notify: NotifySettingsSchema.optional(),
  })
  .strict(),
);
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** Encrypts the API key at rest; the desktop app backs it with Electron's safeStorage. */
export interface SecretCodec {
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_CHUNK_TIMEOUT_MS = 60_000;


function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

export class SettingsStore {
  constructor(
    readonly file: string,
    /** The desktop app's encryption (safeStorage), which the MCP sign-ins are kept with too; null in the CLI. */
    readonly codec: SecretCodec | null = null,
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
  patch(patch: SettingsChange): SettingsFile {
    const next: SettingsFile = { ...this.read() };
    if (patch.timeoutMs !== undefined) next.timeoutMs = patch.timeoutMs ?? undefined;
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
    if (patch.database !== undefined) next.database = checkedDatabaseUrl(patch.database.trim()) || undefined;
    if (patch.operator !== undefined) next.operator = patch.operator.trim() || undefined;
    if (patch.otlpEndpoint !== undefined) next.otlpEndpoint = patch.otlpEndpoint.trim() || undefined;
    if (patch.otlpHeaders !== undefined) next.otlpHeaders = patch.otlpHeaders.trim() || undefined;
    if (patch.traceUrl !== undefined) next.traceUrl = patch.traceUrl.trim() || undefined;
    if (patch.otlpCaptureContent !== undefined) next.otlpCaptureContent = patch.otlpCaptureContent ?? undefined;
    if (patch.notify !== undefined) {
      const notify = { ...next.notify, ...patch.notify };
      // The console removes the webhook with an empty address.
      if (notify.webhook === '') notify.webhook = undefined;
      next.notify = Object.values(notify).some((v) => v !== undefined) ? notify : undefined;
    }
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
      database: s.database ? redactText(s.database) : null,
      operator: s.operator ?? null,
      notify: {
        webhook: s.notify?.webhook ? shownUrl(s.notify.webhook) : null,
        desktop: s.notify?.desktop !== false,
        terminal: s.notify?.terminal !== false,
        approval: s.notify?.approval !== false,
        failed: s.notify?.failed !== false,
        checksFailed: s.notify?.checksFailed !== false,
        ready: s.notify?.ready !== false,
      },
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

/** A source of model settings (the environment, the settings file) and the provider its own model names. */
interface ModelSource {
  model: string | undefined;
  baseUrl: string | undefined;
  apiKey: string | null;
  /** How the operator names this source's key and changes its address, for a refusal. */
  keyName: string;
  addressField: string;
  setAddress: string;
}

function providerOf(ref: string | undefined): Provider | null {
  return ref && ModelRefSchema.safeParse(ref).success ? parseModelRef(ref).provider : null;
}

/**
 * A source's base URL is for its own model's provider (openai-compatible, which has no default
 * address, takes it from a source that names no model): AGENTS_BASE_URL set for one model must
 * not send a plan pinned to `ollama:` elsewhere.
 */
function baseUrlFrom(source: ModelSource, provider: Provider): string | undefined {
  const own = providerOf(source.model);
  return own === provider || (own === null && provider === 'openai-compatible') ? source.baseUrl : undefined;
}

/** Where a source's key belongs: its own base URL, else the provider's default address (none for openai-compatible). */
function keyAddress(source: ModelSource, provider: Provider): string | null {
  return source.baseUrl ?? (provider === 'openai-compatible' ? null : DEFAULT_BASE_URLS[provider]);
}

/** Two spellings of one address (host case, default port, trailing slash) compare equal. */
function sameAddress(a: string, b: string): boolean {
  const norm = (url: string) => {
    let href = url.trim();
    try {
      href = new URL(href).href;
    } catch {
      // Not a URL: compared as written.
    }
    return href.replace(/\/+$/, '');
  };
  return norm(a) === norm(b);
}

/**
 * The key this process may send to `address` for `provider`. A source's key is for its own
 * model's provider (any, when it names no model) and only for the address it resolves to, so a
 * base URL recorded on a plan never receives a key meant for another server. A key for this
 * provider that belongs elsewhere refuses, naming both addresses; no key at all is null (a
 * server that needs none).
 */
function apiKeyFor(sources: readonly ModelSource[], provider: Provider, address: string): string | null {
  const applicable = sources.filter((s) => s.apiKey && (providerOf(s.model) ?? provider) === provider);
  const match = applicable.find((s) => {
    const home = keyAddress(s, provider);
    return home !== null && sameAddress(home, address);
  });
  if (match) return match.apiKey;
  const other = applicable[0];
  if (!other) return null;
  const home = keyAddress(other, provider) ?? 'no address (openai-compatible has no default)';
  throw new ModelSettingError(
    other.addressField,
    `the plan's model is at ${address}, but ${other.keyName} is for ${home}: ${other.setAddress} to send that key there, or run where no key is set for it`,
  );
}

function sources(env: NodeJS.ProcessEnv, settings: SettingsStore, stored: SettingsFile): [ModelSource, ModelSource] {
  return [
    {
      model: nonEmpty(env.AGENTS_MODEL),
      baseUrl: nonEmpty(env.AGENTS_BASE_URL),
      apiKey: nonEmpty(env.AGENTS_API_KEY) ?? null,
      keyName: 'AGENTS_API_KEY',
      addressField: 'AGENTS_BASE_URL',
      setAddress: "set AGENTS_BASE_URL to the plan's address",
    },
    {
      model: stored.model,
      baseUrl: stored.baseUrl,
      apiKey: settings.apiKey(stored),
      keyName: "the settings' apiKey",
      addressField: 'settings.baseUrl',
      setAddress: "run `agents config set baseUrl` with the plan's address (the console: Settings)",
    },
  ];
}

/**
 * The model a plan uses. A plan keeps its own (`agent.model` and the base URL recorded with it);
 * one that names none takes this process's: the environment (AGENTS_MODEL), then the settings
 * file. The API key always comes from this process, for the model's provider, and is sent only to
 * the address its own source names. Throws a one-line ModelSettingError naming the setting to change.
 */
export function resolveModelConfig(spec: AgentSpec, env: NodeJS.ProcessEnv, settings: SettingsStore): ModelConfig {
  const stored = settings.read();
  const [fromEnv, fromFile] = sources(env, settings, stored);
  const ref = spec.model ?? fromEnv.model ?? fromFile.model;
  if (!ref) throw new ModelSettingError('agent.model', NO_MODEL);
  const field = spec.model ? 'agent.model' : fromEnv.model ? 'AGENTS_MODEL' : 'settings.model';
  const parsed = ModelRefSchema.safeParse(ref);
  if (!parsed.success) throw new ModelSettingError(field, `"${ref}" ${parsed.error.issues[0]?.message ?? 'is not provider:model'}`);
  const { provider, model } = parseModelRef(ref);
  requirePrice(spec, stored);
  const timeout = Number(env.AGENTS_MODEL_TIMEOUT_MS);
  const timeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout : (stored.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const config: ModelConfig = {
    provider,
    model,
    baseUrl: spec.baseUrl ?? baseUrlFrom(fromEnv, provider) ?? baseUrlFrom(fromFile, provider) ?? null,
    apiKey: null,
    timeoutMs,
    chunkTimeoutMs: Math.min(timeoutMs, DEFAULT_CHUNK_TIMEOUT_MS),
  };
  config.apiKey = apiKeyFor([fromEnv, fromFile], provider, baseUrlOf(config));
  if (!config.apiKey && PROVIDERS_NEEDING_KEY.includes(provider)) {
    throw new ModelSettingError(
      'AGENTS_API_KEY',
      `the plan's model ${ref} needs an API key for ${provider} in this process: set AGENTS_API_KEY, or run \`agents config set apiKey <key>\` (the console: Settings)`,
    );
  }
  return config;
}

/** A plan with a cost budget cannot run without a price to count its cost at: refused when created and each time it would run. */
function requirePrice(spec: AgentSpec, stored: SettingsFile): void {
  if (spec.maxCostUsd === undefined || stored.price) return;
  throw new ModelSettingError(
    'agent.maxCostUsd',
    `the plan's cost budget of ${usd(spec.maxCostUsd)} cannot be checked without a price: run \`agents config set priceInput N\` and \`agents config set priceOutput N\` (US dollars per million tokens; the console: Settings)`,
  );
}

/**
 * The agent spec with its model recorded: provider:model and the base URL this process resolves
 * (never the key), so every later process runs the same model. A plan that has both is unchanged.
 */
export function recordModel(spec: AgentSpec, env: NodeJS.ProcessEnv, settings: SettingsStore): AgentSpec {
  if (spec.model && spec.baseUrl !== undefined) return spec;
  const config = resolveModelConfig(spec, env, settings);
  return { ...spec, model: describeModel(config), baseUrl: baseUrlOf(config) };
}

/** The plan's model as the console shows it, and whether this process can use it. */
export function planModelView(spec: AgentSpec, env: NodeJS.ProcessEnv, settings: SettingsStore): PlanModelView {
  try {
    const config = resolveModelConfig(spec, env, settings);
    return { model: describeModel(config), baseUrl: baseUrlOf(config), usable: true, problem: null };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { model: spec.model, baseUrl: spec.baseUrl ?? null, usable: false, problem: error.message };
  }
}

/** A team database URL from the console or `agents config`: refused in one line (a DatabaseError) unless it is a PostgreSQL URL; '' clears it. */
function checkedDatabaseUrl(value: string): string {
  if (value !== '') resolveDatabaseUrl({ flag: value, env: {} });
  return value;
}

/** A change from the console (SettingsPatch) or `agents config`; a null timeout clears it. */
export type SettingsChange = SettingsPatch & {
  timeoutMs?: number | null;
  database?: string;
  operator?: string;
  notify?: NotifySettings;
  otlpEndpoint?: string;
  otlpHeaders?: string;
  traceUrl?: string;
  otlpCaptureContent?: boolean | null;
};

/** One setting of `agents config`: how it is stored, shown and read from the command line. */
interface ConfigSetting {
  /** The stored value (`config get` prints it, `config list` adds the unit); null when not set. */
  value(file: SettingsFile): string | number | null;
  unit?: string;
  /** `config set KEY VALUE` as a change; an empty value clears the setting. */
  patch(value: string, current: SettingsFile): SettingsChange;
}

function pricePatch(side: 'inputPerMTok' | 'outputPerMTok' | 'cachedInputPerMTok', key: string) {
  return (value: string, current: SettingsFile): SettingsChange => {
    if (value === '') return { price: null };
    const n = parseOrThrow(z.coerce.number().nonnegative(), value, key);
    return { price: { ...(current.price ?? { inputPerMTok: 0, outputPerMTok: 0 }), [side]: n } };
  };
}

/** The settings of `agents config`, in the order `config list` shows them. */
export const CONFIG_SETTINGS = {
  model: {
    value: (file) => file.model ?? null,
    patch: (value) => {
      if (value !== '') parseOrThrow(ModelRefSchema, value, 'model');
      return { model: value };
    },
  },
  baseUrl: {
    value: (file) => file.baseUrl ?? null,
    patch: (value) => parseOrThrow(z.object({ baseUrl: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]) }), { baseUrl: value }),
  },
  // Never the key itself.
  apiKey: { value: (file) => (file.apiKey || file.apiKeyEncrypted ? '(set)' : '(not set)'), patch: (value) => ({ apiKey: value }) },
  priceInput: { value: (file) => file.price?.inputPerMTok ?? null, unit: 'per million tokens', patch: pricePatch('inputPerMTok', 'priceInput') },
  priceOutput: { value: (file) => file.price?.outputPerMTok ?? null, unit: 'per million tokens', patch: pricePatch('outputPerMTok', 'priceOutput') },
  // Input read from the provider's prompt cache; unset, it costs what other input costs.
  priceCachedInput: { value: (file) => file.price?.cachedInputPerMTok ?? null, unit: 'per million tokens', patch: pricePatch('cachedInputPerMTok', 'priceCachedInput') },
  timeoutMs: {
    value: (file) => file.timeoutMs ?? null,
    unit: 'ms',
    patch: (value) => ({ timeoutMs: value === '' ? null : parseOrThrow(z.coerce.number().int().positive(), value, 'timeoutMs') }),
  },
  // The team database's URL, its password shown masked.
  database: {
    value: (file) => (file.database ? redactText(file.database) : null),
    patch: (value) => ({ database: checkedDatabaseUrl(value) }),
  },
  operator: { value: (file) => file.operator ?? null, patch: (value) => ({ operator: value }) },
  otlpEndpoint: {
    value: (file) => file.otlpEndpoint ?? null,
    patch: (value) => parseOrThrow(z.object({ otlpEndpoint: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]) }), { otlpEndpoint: value }),
  },
  // The header names only: their values are secrets (an API key, a token).
  otlpHeaders: {
    value: (file) => (file.otlpHeaders ? Object.keys(parseOtlpHeaders(file.otlpHeaders)).map((name) => `${name}=(set)`).join(',') : null),
    patch: (value) => (parseOtlpHeaders(value), { otlpHeaders: value }),
  },
  traceUrl: {
    value: (file) => file.traceUrl ?? null,
    patch: (value) => {
      if (value !== '' && !value.includes('{traceId}')) throw new ValidationError('traceUrl', 'must contain {traceId}, e.g. http://localhost:16686/trace/{traceId}');
      return { traceUrl: value };
    },
  },
  otlpCaptureContent: {
    // Off unless set: prompts, answers and tool arguments may hold what the project keeps private.
    value: (file) => (file.otlpCaptureContent ? 'on' : 'off'),
    patch: (value) => ({ otlpCaptureContent: switchOf(value, 'otlpCaptureContent') ?? null }),
  },
  // Where a plan that needs its operator is announced; the webhook's address shown with its secrets hidden.
  notifyWebhook: {
    value: (file) => (file.notify?.webhook ? shownUrl(file.notify.webhook) : null),
    patch: (value) => ({ notify: { webhook: value === '' ? undefined : parseOrThrow(z.url({ protocol: /^https?$/ }), value, 'notifyWebhook') } }),
  },
  notifyDesktop: { value: (file) => onOff(file.notify?.desktop), patch: (value) => ({ notify: { desktop: switchOf(value, 'notifyDesktop') } }) },
  notifyTerminal: { value: (file) => onOff(file.notify?.terminal), patch: (value) => ({ notify: { terminal: switchOf(value, 'notifyTerminal') } }) },
  // Which kinds are announced, everywhere (shared/attention.ts).
  notifyApproval: { value: (file) => onOff(file.notify?.approval), patch: (value) => ({ notify: { approval: switchOf(value, 'notifyApproval') } }) },
  notifyFailed: { value: (file) => onOff(file.notify?.failed), patch: (value) => ({ notify: { failed: switchOf(value, 'notifyFailed') } }) },
  notifyChecksFailed: { value: (file) => onOff(file.notify?.checksFailed), patch: (value) => ({ notify: { checksFailed: switchOf(value, 'notifyChecksFailed') } }) },
  notifyReady: { value: (file) => onOff(file.notify?.ready), patch: (value) => ({ notify: { ready: switchOf(value, 'notifyReady') } }) },
} satisfies Record<string, ConfigSetting>;

function onOff(value: boolean | undefined): string {
  return value === false ? 'off' : 'on';
}

/** `on` or `off`; empty: back to the default (on). */
function switchOf(value: string, key: string): boolean | undefined {
  if (value === '') return undefined;
  return parseOrThrow(z.enum(['on', 'off']), value, key) === 'on';
}
export type ConfigKey = keyof typeof CONFIG_SETTINGS;
export const CONFIG_KEYS = Object.keys(CONFIG_SETTINGS) as ConfigKey[];

/** The setting named on the command line; an unknown name is bad input that lists the known ones. */
export function configSetting(key: string): ConfigSetting {
  if (!Object.hasOwn(CONFIG_SETTINGS, key)) throw new ValidationError('key', `unknown setting "${key}"; the settings are ${CONFIG_KEYS.join(', ')}`);
  return CONFIG_SETTINGS[key as ConfigKey];
}

/** `agents config set KEY VALUE` as a settings change. */
export function configPatch(key: string, value: string, current: SettingsFile): SettingsChange {
  return configSetting(key).patch(value, current);
}
