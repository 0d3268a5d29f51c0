import type { ChangeEntryMeta } from '../../../shared/changes';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { StreamEvent, StreamEventOf, StreamEventType } from '../../../shared/events';
import { statusLabel } from '../../../shared/vocabulary';

/** When the engine will retry a failed step on its own. */
export interface NextRetry {
  at: number;
  attempt: number;
  decisionId: string | null;
  error: string | null;
}

/** What to read again; `review` is the changeset's review (what is applied), never the list of entries. */
export type FollowUp = 'plan' | 'decisions' | 'errors' | 'approvals' | 'review';

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
  /** Entries the events recorded, in order: the changes list appends them. */
  changes: ChangeEntryMeta[];
  /** The changeset a run started recording into, if one did. */
  changesetId: string | null;
}

/** Event types that change what the plan list shows. */
export const LIST_EVENT_TYPES: ReadonlySet<StreamEventType> = new Set([
  'plan_created',
  'state_changed',
  'decision_status',
  'strategize_decisions',
  'apply_complete',
  'paused',
  // A fork made in another process is a new plan in the list.
  'plan_forked',
]);

/**
 * Moves the open plan's live state forward by events newer than anything applied before. Events
 * carry what changed (typed by shared/events.ts), so most of it is applied here; the richer
 * snapshots that events only point at are refetched (the returned follow-ups). Tool calls are
 * folded by foldToolCalls (tool-calls.ts).
 */
export function reducePlanEvents(state: LivePlanState, events: readonly StreamEvent[]): ReducedEvents {
  let { plan, decisions, pausedDecisionId, nextRetry } = state;
  const followUps = new Set<FollowUp>();
  const messages: string[] = [];
  const changes: ChangeEntryMeta[] = [];
  let changesetId: string | null = null;
  const name = () => plan?.name ?? 'The plan';

  for (const event of events) {
    switch (event.type) {
      case 'state_changed': {
        const { to, phase } = event.data;
        if (plan) plan = { ...plan, processingState: to, phase, updatedAt: event.ts };
        if (to !== 'processing') nextRetry = null;
        if (to !== 'paused') pausedDecisionId = null;
        followUps.add('plan');
        followUps.add('approvals');
        if (to === 'errored' || to === 'queued' || to === 'complete' || to === 'cancelled') {
          followUps.add('decisions');
          followUps.add('errors');
          followUps.add('review');
        }
        messages.push(`${name()}: ${statusLabel({ phase, processingState: to, errorDetails: { category: event.data.category } })}`);
        continue;
      }
      case 'decision_status': {
        const { decisionId: id, status } = event.data;
        if (decisions[id]) decisions = { ...decisions, [id]: { ...decisions[id], status, updatedAt: event.ts } };
        else followUps.add('decisions');
        if (id === pausedDecisionId && status !== 'pending') pausedDecisionId = null;
        if (status === 'failed') messages.push(`Step failed: ${decisions[id]?.description ?? id}`);
        continue;
      }
      case 'paused': {
        const { decisionId, index, total, description } = event.data;
        pausedDecisionId = decisionId;
        messages.push(`${name()} paused before step ${index} of ${total}${description ? `: ${description}` : ''}`);
        continue;
      }
      case 'retry_scheduled':
        nextRetry = retryOf(event);
        followUps.add('errors');
        followUps.add('decisions');
        messages.push(`Attempt failed; retrying automatically in ${Math.ceil(event.data.delayMs / 1000)} s`);
        continue;
      case 'error_recorded':
        followUps.add('errors');
        followUps.add('decisions');
        continue;
      case 'strategize_decisions':
      case 'strategize_complete':
        followUps.add('decisions');
        followUps.add('plan');
        continue;
      case 'approval_requested':
      case 'approval_resolved':
        // An answer is recorded as a decision under its step.
        followUps.add('approvals');
        followUps.add('decisions');
        continue;
      case 'plan_rewound':
        // Its decision is in the tree, and the errors list it; the review leaves the rewound entries out.
        followUps.add('plan');
        followUps.add('decisions');
        followUps.add('errors');
        followUps.add('review');
        messages.push(`${name()} rewound to before step ${event.data.toStep} by ${event.data.by}; step ${event.data.toStep} and the later ones are pending again`);
        continue;
      case 'sandbox_remade':
        // The plan names its new sandbox.
        followUps.add('plan');
        continue;
      case 'plan_forked':
        // The origin lists its forks, the fork its origin (plans.get).
        followUps.add('plan');
        if (event.data.forkId !== event.planId) messages.push(`${name()} forked at step ${event.data.atStep} by ${event.data.by}: new plan ${event.data.forkId}`);
        continue;
      case 'recovery_applied':
        followUps.add('decisions');
        followUps.add('errors');
        followUps.add('plan');
        continue;
      case 'model_usage': {
        const { planInputTokens: inputTokens, planOutputTokens: outputTokens } = event.data;
        // The plan's total as the event states it; an event stored before totals were kept adds its own figure.
        const costUsd = event.data.planCostUsd ?? (event.data.costUsd !== undefined ? (plan?.usage?.costUsd ?? 0) + event.data.costUsd : plan?.usage?.costUsd);
        if (plan) plan = { ...plan, usage: { steps: plan.usage?.steps ?? [], inputTokens, outputTokens, ...(costUsd !== undefined ? { costUsd } : {}) } };
        continue;
      }
      case 'change_recorded':
        changes.push(event.data.entry);
        continue;
      case 'step_subtasks': {
        // The agent's whole list: the tree shows it under the step as it comes.
        const { decisionId: id, entries } = event.data;
        if (decisions[id]) decisions = { ...decisions, [id]: { ...decisions[id], subtasks: entries } };
        else followUps.add('decisions');
        continue;
      }
      case 'runtime_execute_started':
        changesetId = event.data.changesetId;
        nextRetry = null;
        continue;
      case 'apply_complete':
        followUps.add('plan');
        followUps.add('review');
        continue;
      case 'execute_complete':
      case 'runtime_execute_complete':
        followUps.add('plan');
        continue;
      case 'strategize_started':
      case 'execute_started':
        nextRetry = null;
        continue;
      // Other slices take these (tool calls, checks, checkpoints), or nothing shows them live.
      case 'execute_step':
      case 'runtime_execute_step':
      case 'plan_created':
      case 'tool_call_started':
      case 'tool_call_finished':
      case 'tool_progress':
      case 'tool_log':
      case 'model_output':
      case 'context_folded':
      case 'check_started':
      case 'check_output':
      case 'check_finished':
      case 'checks_complete':
      case 'checks_stale':
      case 'checkpoint_created':
        continue;
    }
    // Every type has its case above: a new one does not compile until it is given one.
    const _unhandled: never = event;
  }
  return { plan, decisions, pausedDecisionId, nextRetry, followUps, messages, changes, changesetId };
}

/** Events that start a run: a retry still pending is over. */
const RUN_STARTS: ReadonlySet<StreamEventType> = new Set(['strategize_started', 'execute_started', 'runtime_execute_started']);

const retryOf = (event: StreamEventOf<'retry_scheduled'>): NextRetry => {
  const at = Date.parse(event.ts);
  return { at: (Number.isNaN(at) ? 0 : at) + event.data.delayMs, attempt: event.data.attempt, decisionId: event.data.decisionId, error: event.data.error };
};

/**
 * What the stored history says about the moment the plan was opened: the decision it is paused
 * before, and a retry still pending. Snapshots carry neither.
 */
export function deriveFromHistory(events: readonly StreamEvent[], plan: Plan | null): Pick<LivePlanState, 'pausedDecisionId' | 'nextRetry'> {
  let pausedDecisionId: string | null = null;
  let nextRetry: NextRetry | null = null;
  for (const event of events) {
    if (event.type === 'paused') pausedDecisionId = event.data.decisionId;
    else if (event.type === 'decision_status' && event.data.decisionId === pausedDecisionId && event.data.status !== 'pending') pausedDecisionId = null;
    else if (event.type === 'retry_scheduled') nextRetry = retryOf(event);
    else if (RUN_STARTS.has(event.type) || (event.type === 'state_changed' && event.data.to !== 'processing')) nextRetry = null;
  }
  return {
    pausedDecisionId: plan?.processingState === 'paused' ? pausedDecisionId : null,
    nextRetry: plan === null || plan.processingState === 'processing' ? nextRetry : null,
  };
}
