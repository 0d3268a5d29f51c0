import type { Plan, StrategyDecision } from '../../../shared/domain';
import { PHASES, PROCESSING_STATES, DECISION_STATUSES } from '../../../shared/domain';
import type { StreamEvent, StreamEventType } from '../../../shared/events';

/** When the engine will retry a failed step on its own. */
export interface NextRetry {
  at: number;
  attempt: number;
  decisionId: string | null;
  error: string | null;
}

/** A snapshot to refetch after events said it changed. */
export type FollowUp = 'plan' | 'decisions' | 'invocations' | 'errors' | 'changes' | 'approvals';

export interface LivePlanState {
  plan: Plan | null;
  decisions: Record<string, StrategyDecision>;
  pausedDecisionId: string | null;
  nextRetry: NextRetry | null;
}

export interface ReducedEvents extends LivePlanState {
  followUps: Set<FollowUp>;
  /** What the live region should say, newest last. */
  messages: string[];
}

/** Event types that change what the plan list shows. */
export const LIST_EVENT_TYPES: ReadonlySet<StreamEventType> = new Set([
  'plan_created',
  'state_changed',
  'decision_status',
  'strategize_decisions',
  'apply_complete',
  'paused',
]);

const RUN_STARTS: ReadonlySet<StreamEventType> = new Set(['strategize_started', 'execute_started', 'runtime_execute_started']);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const oneOf = <T extends string>(values: readonly T[], value: unknown): T | null => (values.includes(value as T) ? (value as T) : null);

/**
 * Moves the open plan's live state forward by events newer than anything applied before.
 * Cheap fields change at once; anything richer is refetched (the returned follow-ups).
 */
export function reducePlanEvents(state: LivePlanState, events: readonly StreamEvent[]): ReducedEvents {
  let { plan, decisions, pausedDecisionId, nextRetry } = state;
  const followUps = new Set<FollowUp>();
  const messages: string[] = [];
  const name = () => plan?.name ?? 'The plan';

  for (const event of events) {
    const data = event.data;
    switch (event.type) {
      case 'state_changed': {
        const to = oneOf(PROCESSING_STATES, data.to);
        const phase = oneOf(PHASES, data.phase);
        if (plan && to) plan = { ...plan, processingState: to, phase: phase ?? plan.phase, updatedAt: event.ts };
        if (to !== 'processing') nextRetry = null;
        if (to !== 'paused') pausedDecisionId = null;
        followUps.add('plan');
        followUps.add('approvals');
        if (to === 'errored' || to === 'queued' || to === 'complete' || to === 'cancelled') {
          followUps.add('decisions');
          followUps.add('errors');
          followUps.add('changes');
        }
        if (to) messages.push(`${name()} is ${to}${phase ? ` (${phase})` : ''}`);
        break;
      }
      case 'decision_status': {
        const id = str(data.decisionId);
        const status = oneOf(DECISION_STATUSES, data.status);
        if (id && status && decisions[id]) decisions = { ...decisions, [id]: { ...decisions[id], status, updatedAt: event.ts } };
        else followUps.add('decisions');
        if (id && id === pausedDecisionId && status !== 'pending') pausedDecisionId = null;
        if (id && status === 'failed') messages.push(`Step failed: ${decisions[id]?.description ?? id}`);
        break;
      }
      case 'paused': {
        pausedDecisionId = str(data.decisionId);
        const index = num(data.index);
        const total = num(data.total);
        const where = index && total ? ` before step ${index} of ${total}` : '';
        messages.push(`${name()} paused${where}${str(data.description) ? `: ${str(data.description)}` : ''}`);
        break;
      }
      case 'retry_scheduled': {
        const delay = num(data.delayMs) ?? 0;
        const at = Date.parse(event.ts);
        nextRetry = {
          at: (Number.isNaN(at) ? 0 : at) + delay,
          attempt: num(data.attempt) ?? 0,
          decisionId: str(data.decisionId),
          error: str(data.error),
        };
        followUps.add('errors');
        followUps.add('decisions');
        messages.push(`Attempt failed; retrying automatically in ${Math.ceil(delay / 1000)} s`);
        break;
      }
      case 'error_recorded':
        followUps.add('errors');
        followUps.add('decisions');
        break;
      case 'strategize_decisions':
      case 'strategize_complete':
        followUps.add('decisions');
        followUps.add('plan');
        break;
      case 'approval_requested':
      case 'approval_resolved':
        // An answer is recorded as a decision under its step.
        followUps.add('approvals');
        followUps.add('decisions');
        break;
      case 'recovery_applied':
        followUps.add('decisions');
        followUps.add('errors');
        followUps.add('plan');
        break;
      case 'tool_call_finished':
        followUps.add('invocations');
        break;
      case 'model_usage': {
        const input = num(data.planInputTokens);
        const output = num(data.planOutputTokens);
        if (plan && input !== null && output !== null) plan = { ...plan, usage: { steps: plan.usage?.steps ?? [], inputTokens: input, outputTokens: output } };
        break;
      }
      case 'change_recorded':
        followUps.add('changes');
        break;
      case 'apply_complete':
      case 'execute_complete':
      case 'runtime_execute_complete':
        followUps.add('plan');
        followUps.add('changes');
        break;
      default:
        if (RUN_STARTS.has(event.type)) nextRetry = null;
    }
  }
  return { plan, decisions, pausedDecisionId, nextRetry, followUps, messages };
}

/**
 * What the stored history says about the moment the plan was opened: the decision it is paused
 * before, and a retry still pending. Snapshots carry neither.
 */
export function deriveFromHistory(events: readonly StreamEvent[], plan: Plan | null): Pick<LivePlanState, 'pausedDecisionId' | 'nextRetry'> {
  let pausedDecisionId: string | null = null;
  let nextRetry: NextRetry | null = null;
  for (const event of events) {
    if (event.type === 'paused') pausedDecisionId = str(event.data.decisionId);
    else if (event.type === 'decision_status' && str(event.data.decisionId) === pausedDecisionId && event.data.status !== 'pending') pausedDecisionId = null;
    else if (event.type === 'retry_scheduled') {
      const at = Date.parse(event.ts);
      nextRetry = { at: (Number.isNaN(at) ? 0 : at) + (num(event.data.delayMs) ?? 0), attempt: num(event.data.attempt) ?? 0, decisionId: str(event.data.decisionId), error: str(event.data.error) };
    } else if (RUN_STARTS.has(event.type) || (event.type === 'state_changed' && event.data.to !== 'processing')) nextRetry = null;
  }
  return {
    pausedDecisionId: plan?.processingState === 'paused' ? pausedDecisionId : null,
    nextRetry: plan === null || plan.processingState === 'processing' ? nextRetry : null,
  };
}
