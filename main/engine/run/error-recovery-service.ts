import type { ActionId, NextStep } from '../../../shared/action-ids';
import type { ErrorCategory, Phase, Plan, RecoveryAction, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import { PlanError, ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { EngineError, ToolCallError } from '../errors';
import { ModelSettingError } from '../model/model-config';
import type { PlanLifecycleService } from './lifecycle';
import type { ErrorLog, ErrorRecovery, FailureReport, RecoveryVerdict } from '../ports/recovery';

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
  verification: {
    retriable: false,
    action: 'correct',
    hint: 'A check failed in the sandbox. Fix the cause and run the checks again, ask the agent to fix it, or apply anyway once you have read the output.',
  },
  project_unreachable: {
    retriable: false,
    action: 'retry',
    hint: "The plan's git repository could not be cloned. Check its URL and ref, and that this machine can reach it (network, SSH key, credential helper), then retry.",
  },
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

/** Each suggestion once; the category's own advice replaces the message of the first. */
const SUGGESTED = {
  retry: 'Retry the failed phase from the failed step',
  show_errors: 'Read the full error history',
  discard: 'Discard this plan, correct the plan file and create it again',
  skip: 'Skip the failed step and go on with the next one',
  edit_step: "Replace the failed step's tool calls (a file with step: and tools:)",
  set_profile: 'Change the automation profile, e.g. to one that allows the shell',
  replan: 'Replace the steps not done yet with those of a plan file',
  correct: 'Ask the agent to fix the step, with a note on what to do differently',
  verify: 'Run the checks again in the sandbox',
  apply: 'Apply the changes although a check failed',
} as const satisfies Partial<Record<ActionId, string>>;

/**
 * What the operator can do next, the category's own suggestion first: each an action with its
 * arguments (shared/actions.ts), which the CLI shows as a command and the console as a button.
 * `step` is the failed step's number as `agents plan tree` counts them, when a step failed.
 */
export function recoveryHints(category: ErrorCategory, step?: number | null): NextStep[] {
  const policy = CATEGORY_POLICIES[category];
  const at: NextStep['args'] = step ? { step } : {};
  const hint = (action: keyof typeof SUGGESTED, args: NextStep['args'] = {}): NextStep => ({ action, args, message: SUGGESTED[action] });
  const h = {
    retry: hint('retry'),
    inspect: hint('show_errors'),
    discard: hint('discard'),
    skip: hint('skip', at),
    edit: hint('edit_step', at),
    profile: hint('set_profile', { profile: 'trusted' }),
    replan: hint('replan'),
    correct: hint('correct'),
  };
  const first = (next: NextStep): NextStep => ({ ...next, message: policy.hint });
  if (category === 'conflict') return [first(h.inspect), h.discard];
  if (category === 'verification') return [first(hint('verify')), h.correct, hint('apply', { acceptFailedChecks: true }), h.discard];
  switch (policy.action) {
    case 'retry':
      return [first(h.retry), h.skip, h.edit, h.inspect];
    case 'correct_input':
      return [first(h.edit), h.skip, h.replan, h.discard];
    case 'revert_to_strategize':
      return [first(h.replan), h.skip, h.inspect];
    case 'skip':
      return [first(h.skip), h.edit, h.replan];
    case 'edit_step':
      return [first(h.edit), h.skip, h.replan];
    case 'change_profile':
      return [first(h.profile), h.skip, h.edit];
    case 'manual':
      return category === 'policy' ? [first(h.profile), h.skip, h.edit, h.inspect] : [first(h.inspect), h.retry, h.discard];
    case 'correct':
      return [first(h.correct), h.retry, h.inspect];
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

  async onFailure(report: FailureReport): Promise<RecoveryVerdict> {
    const { plan, phase, error, attempt, decisionId } = report;
    const maxRetries = plan.automationProfile.autoRetryTransient;
    const retriable = CATEGORY_POLICIES[classifyError(error)].retriable;
    const retry = retriable && attempt <= maxRetries;
    // A transient failure may say what it is once retrying is over (a model's broken answer: model_output).
    const category = retry ? classifyError(error) : (spentCategoryOf(error) ?? classifyError(error));
    const policy = CATEGORY_POLICIES[category];
    const err = error instanceof Error ? error : new Error(String(error));
    const first = recoveryHints(category)[0];
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
      // The error's own hint says why, as the category's words do for a hint of its own.
      next: first ? { ...first, message: hint } : null,
      outcome: retry ? 'retried' : 'gave_up',
      createdAt: new Date().toISOString(),
    };
    const { stack: _stack, ...published } = record;
    // The record, its event and the recovery decision commit together.
    const addDecision = (reason: string) =>
      this.lifecycle.unit(async () => {
        await this.log.record(record);
        await this.lifecycle.events.publish(plan.id, 'error_recorded', published);
        await this.addRecoveryDecision(plan, decisionId, retry ? 'Retried automatically' : 'Gave up', reason, retry ? 'done' : 'failed');
      });

    // The provider's Retry-After is a floor: retrying sooner would only be refused again.
    const delayMs = retry ? Math.max(this.delayFor(attempt), retryAfterMsOf(error)) : 0;
    const reason = retry
      ? `Attempt ${attempt} failed (${category}); attempt ${attempt + 1} starts automatically in ${delayMs} ms (automatic retries: ${attempt} of ${maxRetries}): ${err.message}`
      : retriable
        ? `Attempt ${attempt} failed; gave up after ${attempt - 1} automatic ${attempt - 1 === 1 ? 'retry' : 'retries'} (limit ${maxRetries}): ${err.message}`
        : `Attempt ${attempt} failed; a ${category} failure is not retried automatically: ${err.message}`;
    // A recovery that gave up did not succeed: the tree shows it failed, not done.
    await addDecision(reason);

    const details = {
      category,
      retryCount: attempt - 1,
      maxRetries,
      retriable: policy.retriable,
      recoveryAction: policy.action,
      hint,
      next: record.next,
    };
    return retry ? { retry: true, delayMs, details: { category, maxRetries } } : { retry: false, details };
  }

  async retriedSoFar(planId: string, phase: Phase, decisionId: string): Promise<number> {
    const records = (await this.log.listForPlan(planId)).filter((r) => r.phase === phase && r.decisionId === decisionId);
    const lastGaveUp = records.findLastIndex((r) => r.outcome !== 'retried');
    return records.length - lastGaveUp - 1;
  }

  /** Adds an error_recovery decision under the failed step (or the root when no step failed). */
  addRecoveryDecision(plan: Plan, decisionId: string | null, title: string, reason: string, status: StrategyDecision['status'] = 'done'): Promise<StrategyDecision | undefined> {
    return this.lifecycle.addDecisionUnder(plan.id, decisionId, 'error_recovery', title, reason, status);
  }
}
