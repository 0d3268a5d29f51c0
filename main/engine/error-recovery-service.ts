import type { ErrorCategory, ErrorRecord, Phase, Plan, RecoveryAction, StrategyDecision } from '../../shared/domain';
import { PlanError, ValidationError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { EngineError, ToolCallError } from './errors';
import { ModelSettingError } from './model/model-config';
import type { PlanLifecycleService } from './lifecycle';
import type { ErrorLog, ErrorRecovery, FailureReport, RecoveryVerdict } from './recovery';

interface CategoryPolicy {
  retriable: boolean;
  action: RecoveryAction;
  hint: string;
}

/** What each category means for the operator. Only transient failures are retried automatically. */
export const CATEGORY_POLICIES: Record<ErrorCategory, CategoryPolicy> = {
  transient: { retriable: true, action: 'retry', hint: 'A temporary failure (a busy resource, a timeout or exit status 75). Retrying usually succeeds.' },
  validation: { retriable: false, action: 'correct_input', hint: "A tool call had invalid input. Edit the step's calls, skip the step, or replan." },
  policy: { retriable: false, action: 'change_profile', hint: "The plan's automation profile does not allow this. Change the profile to one that permits it, or skip the step." },
  tool: { retriable: false, action: 'retry', hint: 'A tool failed. Fix the cause (the file or command it names), then retry from the failed step.' },
  conflict: { retriable: false, action: 'manual', hint: 'The project changed since the plan ran. Review the conflicting files, then apply the rest or discard the plan.' },
  interrupted: { retriable: false, action: 'retry', hint: 'The process running this plan stopped before it finished. Retry resumes at the step that was running.' },
  internal: { retriable: false, action: 'manual', hint: 'An unexpected error inside the engine. Read the stack in the error history; retry once the cause is understood.' },
  auth: {
    retriable: false,
    action: 'retry',
    hint: 'The model provider refused the API key. Set AGENTS_API_KEY, or store a key with `agents config set apiKey <key>`, then retry.',
  },
  model_config: {
    retriable: false,
    action: 'retry',
    hint: 'The model is unknown to the provider or not configured. Set agent.model in the plan file, AGENTS_MODEL, or `agents config set model provider:model`, then retry.',
  },
  model_output: {
    retriable: false,
    action: 'retry',
    hint: "The model's output did not validate, even after it was told why three times. Retry, or use a more capable model.",
  },
  budget: {
    retriable: false,
    action: 'correct',
    hint: 'The model used up its turn or token budget for this step. Ask the agent to fix it with a note, or raise agent.maxTurnsPerStep and retry.',
  },
  rejected: { retriable: false, action: 'skip', hint: 'The operator rejected a call of this step. Skip the step, edit its calls, or replan the steps not done.' },
  invariant: { retriable: false, action: 'edit_step', hint: "The step breaks a project invariant (.agents/invariants.yaml). Edit the step's calls, skip it, or replan." },
};

const NODE_TRANSIENT_CODES = new Set(['EBUSY', 'EAGAIN', 'EMFILE', 'ENFILE', 'ETIMEDOUT', 'ECONNRESET', 'SQLITE_BUSY']);

/** Sorts a failure into a category from what the error carries. */
export function classifyError(error: unknown): ErrorCategory {
  const cause = error instanceof ToolCallError ? error.cause : error;
  if (cause instanceof EngineError) return cause.category;
  if (cause instanceof ModelSettingError) return 'model_config';
  if (cause instanceof ValidationError) return 'validation';
  if (cause instanceof PlanError) return 'validation';
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (NODE_TRANSIENT_CODES.has(code)) return 'transient';
    if (code === 'EACCES' || code === 'EPERM') return 'policy';
    if (code.startsWith('E')) return 'tool';
  }
  return 'internal';
}

import type { RecoveryHint } from '../../shared/contract';
export type { RecoveryHint };

/**
 * Plain-language suggestions with the exact CLI command for each, the category's own first.
 * `step` is the failed step's number as `agents plan tree` counts them, when a step failed.
 */
export function recoveryHints(planId: string, category: ErrorCategory, step?: number | null): RecoveryHint[] {
  const policy = CATEGORY_POLICIES[category];
  const at = step ? ` --step ${step}` : '';
  const hint = {
    retry: { action: 'retry', message: 'Retry the failed phase from the failed step', command: `agents plan retry ${planId}` },
    reset: { action: 'manual', message: 'Reset the plan to queued and run it again', command: `agents plan reset ${planId}` },
    inspect: { action: 'manual', message: 'Read the full error history', command: `agents plan errors ${planId}` },
    discard: { action: 'correct_input', message: 'Discard this plan, correct the plan file and create it again', command: `agents plan discard ${planId}` },
    skip: { action: 'skip', message: 'Skip the failed step and go on with the next one', command: `agents plan skip ${planId}${at}` },
    edit: { action: 'edit_step', message: "Replace the failed step's tool calls (a file with step: and tools:)", command: `agents plan edit-step ${planId} --step ${step ?? 'N'} --file step.yaml` },
    profile: { action: 'change_profile', message: 'Change the automation profile, e.g. to one that allows the shell', command: `agents plan profile ${planId} trusted` },
    replan: { action: 'revert_to_strategize', message: 'Replace the steps not done yet with those of a plan file', command: `agents plan replan ${planId} --file plan.yaml` },
  } satisfies Record<string, RecoveryHint>;
  const first = (h: RecoveryHint): RecoveryHint => ({ ...h, message: policy.hint });
  if (category === 'conflict') return [first(hint.inspect), hint.discard];
  switch (policy.action) {
    case 'retry':
      return [first(hint.retry), hint.skip, hint.edit, hint.inspect];
    case 'correct_input':
      return [first(hint.edit), hint.skip, hint.replan, hint.discard];
    case 'revert_to_strategize':
      return [first(hint.replan), hint.skip, hint.inspect];
    case 'skip':
      return [first(hint.skip), hint.edit, hint.replan];
    case 'edit_step':
      return [first(hint.edit), hint.skip, hint.replan];
    case 'change_profile':
      return [first(hint.profile), hint.skip, hint.edit];
    case 'manual':
      return category === 'policy' ? [first(hint.profile), hint.skip, hint.edit, hint.inspect] : [first(hint.inspect), hint.retry, hint.discard];
    case 'correct':
      return [{ action: 'correct', message: policy.hint, command: `agents plan correct ${planId} --note "what to do differently"` }, hint.retry, hint.inspect];
  }
}

/** A hint the error carries for its own case (the model it names, the setting to change). */
function hintOf(error: unknown): string | undefined {
  const cause = error instanceof ToolCallError ? error.cause : error;
  if (cause instanceof ModelSettingError) return cause.hint;
  const value = cause instanceof EngineError ? cause.details.hint : undefined;
  return typeof value === 'string' ? value : undefined;
}

function spentCategoryOf(error: unknown): ErrorCategory | undefined {
  const cause = error instanceof ToolCallError ? error.cause : error;
  const value = cause instanceof EngineError ? cause.details.whenSpent : undefined;
  return typeof value === 'string' && value in CATEGORY_POLICIES ? (value as ErrorCategory) : undefined;
}

/** How long the provider asked us to wait (Retry-After), if it did. */
function retryAfterMsOf(error: unknown): number {
  const cause = error instanceof ToolCallError ? error.cause : error;
  const value = cause instanceof EngineError ? cause.details.retryAfterMs : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export interface ErrorRecoveryOptions {
  /** First retry delay; later ones double, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
}

/**
 * Records every failure, decides on automatic retry (limit from the plan's automation profile),
 * and adds an error_recovery decision under the failed step for every action it takes.
 */
export class ErrorRecoveryService implements ErrorRecovery {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly random: () => number;

  constructor(
    private readonly log: ErrorLog,
    private readonly lifecycle: PlanLifecycleService,
    options: ErrorRecoveryOptions = {},
  ) {
    this.baseDelayMs = options.baseDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.random = options.random ?? Math.random;
  }

  /** Exponential backoff with jitter: between half and all of base * 2^(attempt-1). */
  delayFor(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling * (0.5 + this.random() * 0.5));
  }

  onFailure(report: FailureReport): RecoveryVerdict {
    const { plan, phase, error, attempt, decisionId } = report;
    const maxRetries = plan.automationProfile.autoRetryTransient;
    const retriable = CATEGORY_POLICIES[classifyError(error)].retriable;
    const retry = retriable && attempt <= maxRetries;
    // A transient failure may say what it is once retrying is over (a model's broken answer: model_output).
    const category = retry ? classifyError(error) : (spentCategoryOf(error) ?? classifyError(error));
    const policy = CATEGORY_POLICIES[category];
    const err = error instanceof Error ? error : new Error(String(error));
    const hints = recoveryHints(plan.id, category);
    // A broken invariant names its rule, so the operator knows which line of invariants.yaml refused it.
    const rule = error instanceof ToolCallError && error.cause instanceof EngineError ? error.cause.details.rule : undefined;
    const hint = hintOf(error) ?? (typeof rule === 'string' ? `${policy.hint} Rule: ${rule}.` : policy.hint);
    const record: ErrorRecord = {
      id: newId(),
      planId: plan.id,
      phase,
      decisionId,
      attempt,
      category,
      retriable: policy.retriable,
      recoveryAction: policy.action,
      message: err.message,
      stack: err.stack ?? null,
      hint,
      command: hints[0]?.command ?? null,
      outcome: retry ? 'retried' : 'gave_up',
      createdAt: new Date().toISOString(),
    };
    this.log.record(record);
    const { stack: _stack, ...published } = record;
    this.lifecycle.events.publish(plan.id, 'error_recorded', published);

    // The provider's Retry-After is a floor: retrying sooner would only be refused again.
    const delayMs = retry ? Math.max(this.delayFor(attempt), retryAfterMsOf(error)) : 0;
    const reason = retry
      ? `Attempt ${attempt} failed (${category}); attempt ${attempt + 1} starts automatically in ${delayMs} ms (automatic retries: ${attempt} of ${maxRetries}): ${err.message}`
      : retriable
        ? `Attempt ${attempt} failed; gave up after ${attempt - 1} automatic ${attempt - 1 === 1 ? 'retry' : 'retries'} (limit ${maxRetries}): ${err.message}`
        : `Attempt ${attempt} failed; a ${category} failure is not retried automatically: ${err.message}`;
    // A recovery that gave up did not succeed: the tree shows it failed, not done.
    this.addRecoveryDecision(plan, decisionId, retry ? 'Retried automatically' : 'Gave up', reason, retry ? 'done' : 'failed');

    const details = {
      category,
      retryCount: attempt - 1,
      maxRetries,
      retriable: policy.retriable,
      recoveryAction: policy.action,
      hint,
      recoveryCommand: record.command,
    };
    return retry ? { retry: true, delayMs, details: { category, maxRetries } } : { retry: false, details };
  }

  retriedSoFar(planId: string, phase: Phase, decisionId: string): number {
    const records = this.log.listForPlan(planId).filter((r) => r.phase === phase && r.decisionId === decisionId);
    const lastGaveUp = records.findLastIndex((r) => r.outcome !== 'retried');
    return records.length - lastGaveUp - 1;
  }

  /** Adds an error_recovery decision under the failed step (or the root when no step failed). */
  addRecoveryDecision(plan: Plan, decisionId: string | null, title: string, reason: string, status: StrategyDecision['status'] = 'done'): StrategyDecision | undefined {
    return this.lifecycle.addDecisionUnder(plan.id, decisionId, 'error_recovery', title, reason, status);
  }
}
