import type { Phase, Plan, ProcessingState } from './domain';

/**
 * The words an operator reads for where a plan stands, the same in the CLI, the console and error
 * messages. A status is derived from the stored phase and processing state (and what the plan waits
 * for), never shown as that pair.
 */
export const PLAN_STATUSES = ['ready_to_run', 'running', 'paused', 'waiting_for_approval', 'ready_to_apply', 'checks_failed', 'applied', 'failed', 'interrupted', 'discarded'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const STATUS_LABELS: Record<PlanStatus, string> = {
  ready_to_run: 'Ready to run',
  running: 'Running',
  paused: 'Paused',
  waiting_for_approval: 'Waiting for approval',
  ready_to_apply: 'Ready to apply',
  checks_failed: 'Checks failed',
  applied: 'Applied',
  failed: 'Failed',
  interrupted: 'Interrupted',
  discarded: 'Discarded',
};

/** The phases by the names the README gives them. */
export const PHASE_LABELS: Record<Phase, string> = { strategize: 'Strategize', execute: 'Execute', apply: 'Apply' };

export type PlanStanding = Pick<Plan, 'phase' | 'processingState'> & Partial<Pick<Plan, 'waitingFor' | 'errorDetails'>>;

export function planStatus(plan: PlanStanding): PlanStatus {
  switch (plan.processingState) {
    case 'queued':
      return plan.phase === 'apply' ? 'ready_to_apply' : 'ready_to_run';
    case 'processing':
      return 'running';
    case 'paused':
      return plan.waitingFor === 'approval' ? 'waiting_for_approval' : 'paused';
    case 'errored':
      if (plan.errorDetails?.category === 'verification') return 'checks_failed';
      return plan.errorDetails?.category === 'interrupted' ? 'interrupted' : 'failed';
    case 'complete':
      return 'applied';
    case 'cancelled':
      return 'discarded';
  }
}

/** "Ready to apply", "Waiting for approval", "Interrupted", ... */
export function statusLabel(plan: PlanStanding): string {
  return STATUS_LABELS[planStatus(plan)];
}

/** The statuses a phase in one of `states` is in, in words: what an action needs. */
export function requiredStatuses(phase: Phase, states: readonly ProcessingState[]): string[] {
  return [...new Set(states.map((processingState) => statusLabel({ phase, processingState })))];
}

/** "plan P is Applied; apply needs a plan that is Ready to apply or Failed". */
export function wrongStateMessage(plan: PlanStanding & { id: string }, action: string, needs: readonly string[]): string {
  return `plan ${plan.id} is ${statusLabel(plan)}; ${action} needs a plan that is ${needs.join(' or ')}`;
}

/**
 * A refusal by phase: "plan P is Failed in phase execute; apply needs it in phase apply" where the
 * status alone reads the same as one the action needs, else as `wrongStateMessage`.
 */
export function wrongPhaseMessage(plan: PlanStanding & { id: string }, action: string, phase: Phase, states: readonly ProcessingState[]): string {
  const needs = requiredStatuses(phase, states);
  // "Ready to run" before strategize and before execute read alike: then the phase tells them apart.
  return needs.includes(statusLabel(plan)) ? `plan ${plan.id} is ${statusLabel(plan)} in phase ${plan.phase}; ${action} needs it in phase ${phase}` : wrongStateMessage(plan, action, needs);
}

/** "1 tool call", "3 tool calls". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** 850 ms, 2.5 s, 12 s, 3 min 5 s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}
