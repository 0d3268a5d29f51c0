import { z } from 'zod';

/** Model providers: OpenAI-compatible covers OpenAI, Ollama, llama.cpp, vLLM, LM Studio and OpenRouter. */
export const PROVIDERS = ['openai-compatible', 'openai', 'ollama', 'anthropic'] as const;
export const ProviderSchema = z.enum(PROVIDERS);
export type Provider = z.infer<typeof ProviderSchema>;

/** `provider:model`, e.g. `openai-compatible:qwen2.5-coder` or `anthropic:claude-sonnet-4-5`. */
export const ModelRefSchema = z
  .string()
  .max(300)
  .regex(/^[a-z-]+:.+$/, 'must be provider:model, e.g. openai-compatible:qwen2.5-coder')
  .refine((ref) => (PROVIDERS as readonly string[]).includes(ref.slice(0, ref.indexOf(':'))), {
    message: `the provider must be one of ${PROVIDERS.join(', ')}`,
  });

export function parseModelRef(ref: string): { provider: Provider; model: string } {
  const at = ref.indexOf(':');
  return { provider: ProviderSchema.parse(ref.slice(0, at)), model: ref.slice(at + 1) };
}

export const DEFAULT_MAX_TURNS_PER_STEP = 20;
/** Output tokens one step (strategize counts as one) may use across all its model calls. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_000;

/** The context window assumed for a model no entry of CONTEXT_WINDOWS names. */
export const DEFAULT_CONTEXT_TOKENS = 32_000;

/** Context windows of known models, by the start of the model's name (the first match wins). */
export const CONTEXT_WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ['claude', 200_000],
  ['gpt-4.1', 1_000_000],
  ['gpt-5', 400_000],
  ['gpt-4o', 128_000],
  ['o3', 200_000],
  ['o4', 200_000],
  ['gemini', 1_000_000],
  ['qwen3', 128_000],
  ['qwen2.5', 32_000],
  ['deepseek', 128_000],
  ['llama3', 128_000],
  ['mistral', 32_000],
];

/** The context a step's conversation must fit in: the plan's `contextTokens`, else the model's known window. */
export function contextTokensOf(spec: Pick<AgentSpec, 'contextTokens' | 'model'>): number {
  if (spec.contextTokens) return spec.contextTokens;
  const model = (spec.model?.slice(spec.model.indexOf(':') + 1) ?? '').toLowerCase();
  // A model named with its family (openrouter's `anthropic/claude-…`, ollama's `library/qwen2.5`) is looked up by its last part.
  const name = model.slice(model.lastIndexOf('/') + 1);
  return CONTEXT_WINDOWS.find(([prefix]) => name.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_TOKENS;
}

/** `agent:` in a plan file: `true`, or the model and budgets to use. */
export const AgentFileSchema = z.lazy(() =>
  z.union([
    z.literal(true),
    z
      .object({
        model: ModelRefSchema.optional(),
        maxTurnsPerStep: z.number().int().min(1).max(500).optional(),
        maxOutputTokens: z.number().int().min(16).max(1_000_000).optional(),
        /** The context window a step's conversation is kept within; by default the model's, when it is known. */
        contextTokens: z.number().int().min(2_000).max(10_000_000).optional(),
        /** What the plan's model calls may cost in all, in US dollars, at the price in the settings. */
        maxCostUsd: z.number().positive().max(1_000_000).optional(),
        /** false: the project's AGENTS.md is not given to the model. */
        instructions: z.boolean().optional(),
      })
      .strict(),
  ]),
);
export type AgentFile = z.infer<typeof AgentFileSchema>;

/** What a plan keeps of its `agent:` setting. */
export const AgentSpecSchema = z.lazy(() =>
  z.object({
    /** provider:model, recorded when the plan is created (or first strategizes): every process runs this one. */
    model: ModelRefSchema.nullable(),
    /** Where the plan's requests go, recorded with the model; never the API key. Absent on plans made before it was kept. */
    baseUrl: z.string().nullable().optional(),
    maxTurnsPerStep: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive(),
    /** Absent: the model's known window (contextTokensOf). */
    contextTokens: z.number().int().positive().optional(),
    /** Absent: no cost budget. */
    maxCostUsd: z.number().positive().optional(),
    /** false: the project's AGENTS.md is not given to the model; absent, it is. */
    instructions: z.literal(false).optional(),
  }),
);
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

export function agentSpecOf(file: AgentFile | undefined): AgentSpec | undefined {
  if (file === undefined) return undefined;
  const given = file === true ? {} : file;
  return {
    model: given.model ?? null,
    maxTurnsPerStep: given.maxTurnsPerStep ?? DEFAULT_MAX_TURNS_PER_STEP,
    maxOutputTokens: given.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    ...(given.contextTokens ? { contextTokens: given.contextTokens } : {}),
    ...(given.maxCostUsd ? { maxCostUsd: given.maxCostUsd } : {}),
    ...(given.instructions === false ? { instructions: false as const } : {}),
  };
}

/** Tokens one step (or strategize, decisionId null) used. */
export const StepUsageSchema = z.lazy(() =>
  z.object({
    decisionId: z.string().nullable(),
    phase: z.enum(['strategize', 'execute']),
    inputTokens: z.number().int().nonnegative(),
    /** Of the input tokens, those the provider read from its prompt cache (absent: none reported). */
    cachedInputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative(),
    /** US dollars a coding agent over ACP reported for its turns (its own reckoning, not our price); absent: none reported. */
    costUsd: z.number().nonnegative().optional(),
    turns: z.number().int().nonnegative(),
    /** The model's finish_step summary, shown to the model in later steps. */
    summary: z.string().nullable(),
  }),
);
export type StepUsage = z.infer<typeof StepUsageSchema>;

export const PlanUsageSchema = z.lazy(() =>
  z.object({
    inputTokens: z.number().int().nonnegative(),
    cachedInputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative(),
    costUsd: z.number().nonnegative().optional(),
    steps: z.array(StepUsageSchema),
  }),
);
export type PlanUsage = z.infer<typeof PlanUsageSchema>;

export const PriceSchema = z.lazy(() =>
  z.object({
    /** Currency units per million input tokens. */
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
    /** Per million input tokens read from the provider's cache; absent: they cost what other input tokens cost. */
    cachedInputPerMTok: z.number().nonnegative().optional(),
  }),
);
export type Price = z.infer<typeof PriceSchema>;

export function costOf(usage: Pick<PlanUsage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'costUsd'>, price: Price | null | undefined): number | null {
  // A coding agent over ACP says what its own model cost; our price is for our model, not its.
  if (usage.costUsd !== undefined) return usage.costUsd;
  if (!price) return null;
  const cached = usage.cachedInputTokens ?? 0;
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return ((usage.inputTokens - cached) * price.inputPerMTok + cached * cachedPrice + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}

/** The settings as the console sees them: never the API key, only whether one is set. */
/** The notifications as Settings shows them: the webhook with its secrets hidden, and each switch (on unless turned off). */
export const NotifyViewSchema = z.object({
  webhook: z.string().nullable(),
  desktop: z.boolean(),
  terminal: z.boolean(),
  approval: z.boolean(),
  failed: z.boolean(),
  checksFailed: z.boolean(),
  ready: z.boolean(),
});
export type NotifyView = z.infer<typeof NotifyViewSchema>;

/** A change of the notifications from the console; an empty webhook removes it. */
export const NotifyPatchSchema = z
  .object({
    webhook: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]).optional(),
    desktop: z.boolean().optional(),
    terminal: z.boolean().optional(),
    approval: z.boolean().optional(),
    failed: z.boolean().optional(),
    checksFailed: z.boolean().optional(),
    ready: z.boolean().optional(),
  })
  .strict();

export const SettingsViewSchema = z.lazy(() =>
  z.object({
    model: z.string().nullable(),
    baseUrl: z.string().nullable(),
    apiKeySet: z.boolean(),
    price: PriceSchema.nullable(),
    /** The team database's URL in the settings, its password masked; null: none (the embedded database, unless --database or AGENTS_DATABASE_URL names one). */
    database: z.string().nullable(),
    operator: z.string().nullable(),
    notify: NotifyViewSchema,
    /** Where the model in effect comes from; an environment variable wins over the settings file. */
    effective: z.object({
      model: z.string().nullable(),
      modelSource: z.enum(['env', 'settings', 'none']),
      baseUrl: z.string().nullable(),
      apiKeySource: z.enum(['env', 'settings', 'none']),
    }),
  }),
);
export type SettingsView = z.infer<typeof SettingsViewSchema>;

/** The plan's own model, and whether the process that answers can use it (a key for its provider, say). */
export const PlanModelViewSchema = z.lazy(() =>
  z.object({
    model: z.string().nullable(),
    baseUrl: z.string().nullable(),
    usable: z.boolean(),
    /** One line naming the setting to change, when it is not usable. */
    problem: z.string().nullable(),
  }),
);
export type PlanModelView = z.infer<typeof PlanModelViewSchema>;

/** What the console may change; an empty string clears a field. */
export const SettingsPatchSchema = z.lazy(() =>
  z
    .object({
      model: z.union([ModelRefSchema, z.literal('')]).optional(),
      baseUrl: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]).optional(),
      apiKey: z.string().max(4096).optional(),
      price: PriceSchema.nullable().optional(),
      /** Team mode: the team's PostgreSQL URL (used from the next start); an empty string leaves the team. */
      database: z.string().max(2048).optional(),
      /** The name this console's answers are recorded under; empty: the default (main/app/operator.ts). */
      operator: z.string().max(100).optional(),
      /** Notifications (README, "Notifications"): the webhook and the per-kind and per-place switches. */
      notify: NotifyPatchSchema.optional(),
    })
    .strict(),
);
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

/** Adds one model call's tokens (and the step's summary, once known) to a plan's usage. */
export function addUsage(usage: PlanUsage | undefined, delta: StepUsage): PlanUsage {
  const steps = [...(usage?.steps ?? [])];
  const at = steps.findIndex((s) => s.decisionId === delta.decisionId && s.phase === delta.phase);
  if (at === -1) steps.push(delta);
  else {
    const step = steps[at];
    steps[at] = {
      ...step,
      inputTokens: step.inputTokens + delta.inputTokens,
      ...sumCached(step, delta),
      outputTokens: step.outputTokens + delta.outputTokens,
      ...sumCost(step, delta),
      turns: step.turns + delta.turns,
      summary: delta.summary ?? step.summary,
    };
  }
  return {
    inputTokens: (usage?.inputTokens ?? 0) + delta.inputTokens,
    ...sumCached(usage, delta),
    outputTokens: (usage?.outputTokens ?? 0) + delta.outputTokens,
    ...sumCost(usage, delta),
    steps,
  };
}

/** A coding agent's reported cost of two usages together; nothing when neither reported one. */
function sumCost(a: { costUsd?: number } | undefined, b: { costUsd?: number }): { costUsd?: number } {
  if (a?.costUsd === undefined && b.costUsd === undefined) return {};
  return { costUsd: (a?.costUsd ?? 0) + (b.costUsd ?? 0) };
}

/** The cached input tokens of two usages together; nothing when neither reported any (a provider without a cache). */
function sumCached(a: { cachedInputTokens?: number } | undefined, b: { cachedInputTokens?: number }): { cachedInputTokens?: number } {
  if (a?.cachedInputTokens === undefined && b.cachedInputTokens === undefined) return {};
  return { cachedInputTokens: (a?.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0) };
}

/** The budgets a run pauses at: a step's turns and output tokens, the plan's cost. */
export const BUDGET_LIMITS = {
  turns: { unit: 'turns', flag: '--turns' },
  outputTokens: { unit: 'output tokens', flag: '--tokens' },
  costUsd: { unit: 'US dollars', flag: '--cost' },
} as const;
export type BudgetLimit = keyof typeof BUDGET_LIMITS;

/**
 * What a budget approval asks: `used` of the budget `max` (absent in asks made before it was kept:
 * all of it); approving gives `more`. Turns and tokens are whole numbers, a cost is in US dollars.
 */
export const BudgetAskSchema = z.lazy(() =>
  z
    .object({
      limit: z.enum(['turns', 'outputTokens', 'costUsd']),
      used: z.number().nonnegative(),
      max: z.number().nonnegative().optional(),
      more: z.number().positive(),
    })
    .refine((ask) => ask.limit === 'costUsd' || (Number.isInteger(ask.used) && Number.isInteger(ask.more)), { message: 'turns and tokens are whole numbers' }),
);
export type BudgetAsk = z.infer<typeof BudgetAskSchema>;

/** How much more the operator gives a budget: turns or output tokens for a step, US dollars for the plan. */
export const BudgetMoreSchema = z.lazy(() =>
  z
    .object({ turns: z.number().int().positive().optional(), outputTokens: z.number().int().positive().optional(), costUsd: z.number().positive().max(1_000_000).optional() })
    .strict(),
);
export type BudgetMore = z.infer<typeof BudgetMoreSchema>;

/** $2.50 */
export const usd = (amount: number): string => `$${amount.toFixed(2)}`;

/**
 * "Step 2 used its 20 turns; allow 20 more?", "Step 2 has 300 of its 16000 output tokens left, too
 * few for a turn; allow 16000 more?", "The plan has cost $2.51 of its $2.50; allow $2.50 more?"
 */
export function describeBudgetAsk(step: string, ask: BudgetAsk): string {
  if (ask.limit === 'costUsd') return `The plan has cost ${usd(ask.used)} of its ${usd(ask.max ?? ask.used)}; allow ${usd(ask.more)} more?`;
  const unit = BUDGET_LIMITS[ask.limit].unit;
  if (ask.max !== undefined && ask.used < ask.max) return `${step} has ${ask.max - ask.used} of its ${ask.max} ${unit} left, too few for a turn; allow ${ask.more} more?`;
  return `${step} used its ${ask.used} ${unit}; allow ${ask.more} more?`;
}
