import { costOf, type PlanUsage, type Price } from './agent';
import { ANY_TOOL, type AutomationProfile } from './profiles';
import type { ErrorRecord } from './error-records';

/**
 * The words for things an operator reads in more than one place, written once: the CLI, the
 * console and the engine's records all use these.
 */

/** "approve shell.run, file.delete; shell allowed, no network; auto-retry 3": what a profile lets through. */
export function describeProfile(profile: AutomationProfile): string {
  const approve = profile.approvalRequired;
  const approvals = approve.includes(ANY_TOOL) ? 'approve every tool call' : approve.length > 0 ? `approve ${approve.join(', ')}` : 'no approvals';
  const shell = profile.allowShell
    ? `shell allowed${profile.allowNetwork ? ' with network' : ', no network'}${profile.allowUnconfinedShell ? ', unconfined where nothing confines it' : ''}`
    : 'shell refused';
  return [approvals, shell, `auto-retry ${profile.autoRetryTransient}`, profile.pauseBeforeEachDecision && 'pause before each step'].filter(Boolean).join('; ');
}

/**
 * The error history as failures: each the attempts at one step (or one phase, before any step),
 * recorded one after another with rising attempt numbers. A retry by the operator starts a new one.
 */
export function failuresOf(errors: readonly ErrorRecord[]): ErrorRecord[][] {
  const failures: ErrorRecord[][] = [];
  for (const error of errors) {
    const current = failures.at(-1);
    const last = current?.at(-1);
    if (current && last && last.decisionId === error.decisionId && last.phase === error.phase && error.attempt > last.attempt) current.push(error);
    else failures.push([error]);
  }
  return failures;
}

/** "850 in (600 cached), 145 out", and the cost when there is a price: a plan's or a step's tokens. */
/** The price a plan's tokens are reckoned at: a coding agent's cost is its own report, never the settings' price. */
export function priceOfPlan(plan: { acp?: unknown }, price: Price | null | undefined): Price | null | undefined {
  return plan.acp ? null : price;
}

export function describeUsage(
  usage: Pick<PlanUsage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'costUsd'>,
  price: Price | null | undefined,
  count: (n: number) => string = String,
): { tokens: string; cost: string | null } {
  const cached = usage.cachedInputTokens ? ` (${count(usage.cachedInputTokens)} cached)` : '';
  const cost = costOf(usage, price);
  return { tokens: `${count(usage.inputTokens)} in${cached}, ${count(usage.outputTokens)} out`, cost: cost === null ? null : cost.toFixed(4) };
}
