import type { AutomationProfile } from '../../../shared/profiles';
import { type DefinitionOfDone, type Phase, type DecisionType, type Plan, type ProcessingState, type StrategyDecision, PHASES } from '../../../shared/domain';
import type { Subtask } from '../../../shared/subtasks';
import { requiredStatuses, statusLabel, wrongPhaseMessage, wrongStateMessage } from '../../../shared/vocabulary';
import { PlanError, ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { EventPublisher } from '../ports/event-stream';
import type { PlanRepository, StepCounts } from '../ports/plan-repository';

/** Which processing states may follow which. */
const TRANSITIONS: Record<ProcessingState, readonly ProcessingState[]> = {
  queued: ['processing', 'cancelled'],
  processing: ['queued', 'paused', 'complete', 'errored', 'cancelled'],
  paused: ['processing', 'queued', 'errored', 'cancelled'],
  errored: ['queued', 'processing', 'cancelled'],
  complete: [],
  cancelled: [],
};

export function canTransition(from: ProcessingState, to: ProcessingState): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface NewPlan {
  name: string;
  description?: string;
  definitionOfDone: DefinitionOfDone;
  invariants?: string[];
  automationProfile: AutomationProfile;
  projectPath?: string | null;
  /** A git project (team mode), in place of projectPath. */
  projectSource?: Plan['projectSource'];
  agent?: Plan['agent'];
  verify?: Plan['verify'];
}

/**
 * Merges new error details into what a plan already holds. Nothing earlier is lost: when a key
 * would change, the earlier failure's details are kept in `history`.
 */
export function mergeErrorDetails(
  existing: Record<string, unknown>,
  incoming: Record<string, unknown>,
): Record<string, unknown> {
  const { history: earlierHistory, ...current } = existing;
  const history = Array.isArray(earlierHistory) ? [...earlierHistory] : [];
  const conflicts = Object.keys(incoming).some(
    (key) => key in current && JSON.stringify(current[key]) !== JSON.stringify(incoming[key]),
  );
  if (conflicts && 'exceptionType' in current) history.push(current);
  const merged: Record<string, unknown> = { ...current, ...incoming };
  if (history.length > 0) merged.history = history;
  return merged;
}

/** What `fail` writes into errorDetails about the current failure; the rest (counts, history) is not an error. */
const CURRENT_ERROR_KEYS = [
  'exceptionType', 'traceback', 'mode', 'phase', 'decisionId', 'attempt', 'category', 'retryCount', 'maxRetries',
  'retriable', 'recoveryAction', 'hint', 'next',
] as const;

/** A plan that leaves `errored` has no current error any more: its details move to `history`, nothing is lost. */
export function clearCurrentError(details: Record<string, unknown>): Record<string, unknown> {
  const current = Object.fromEntries(CURRENT_ERROR_KEYS.filter((key) => key in details).map((key) => [key, details[key]]));
  if (Object.keys(current).length === 0) return details;
  const rest = Object.fromEntries(Object.entries(details).filter(([key]) => !(CURRENT_ERROR_KEYS as readonly string[]).includes(key)));
  const history = Array.isArray(rest.history) ? [...(rest.history as unknown[])] : [];
  return { ...rest, history: [...history, current] };
}

/** Phase transitions strategize -> execute -> apply, processing-state checks, persistence. */
export class PlanLifecycleService {
  constructor(
    readonly repository: PlanRepository,
    readonly events: EventPublisher,
    /**
     * Runs a read-modify-write of a plan as one transaction of the repository's database (SQLite:
     * SqliteConnection.unit), so no other task's write lands between the read and the write.
     * Without it (in-memory stores) the function simply runs.
     */
    private readonly atomically: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn(),
  ) {
    if (!repository) throw new ValidationError('repository', 'is required');
    if (!events) throw new ValidationError('events', 'is required');
  }

  async createPlan(input: NewPlan): Promise<Plan> {
    const now = new Date().toISOString();
    const plan: Plan = {
      id: newId(),
      name: input.name,
      description: input.description ?? '',
      definitionOfDone: input.definitionOfDone,
      invariants: input.invariants ?? [],
      automationProfile: input.automationProfile,
      projectPath: input.projectPath ?? null,
      phase: 'strategize',
      processingState: 'queued',
      decisionRootId: null,
      changesetId: null,
      sandboxRefs: [],
      errorMessage: null,
      errorDetails: {},
      waitingFor: null,
      projectInvariants: null,
      ...(input.agent ? { agent: input.agent } : {}),
      ...(input.projectSource ? { projectSource: input.projectSource } : {}),
      ...(input.verify ? { verify: input.verify } : {}),
      createdAt: now,
      updatedAt: now,
    };
    await this.unit(async () => {
      await this.repository.insert(plan);
      await this.events.publish(plan.id, 'plan_created', { name: plan.name, phase: plan.phase, processingState: plan.processingState });
    });
    return plan;
  }

  findPlan(planId: string): Promise<Plan | undefined> {
    return this.repository.get(planId);
  }

  async getPlan(planId: string): Promise<Plan> {
    if (typeof planId !== 'string' || planId.trim() === '') throw new ValidationError('planId', 'is required');
    const plan = await this.repository.get(planId);
    if (!plan) throw new ValidationError('planId', `no plan with id "${planId}"`);
    return plan;
  }

  listPlans(): Promise<Plan[]> {
    return this.repository.list();
  }

  listPlansInStates(states: readonly ProcessingState[]): Promise<Plan[]> {
    return this.repository.listInStates(states);
  }

  listDecisions(planId: string): Promise<StrategyDecision[]> {
    return this.repository.listDecisions(planId);
  }

  stepCounts(planId: string): Promise<StepCounts> {
    return this.repository.stepCounts(planId);
  }

  saveDecisions(decisions: readonly StrategyDecision[]): Promise<void> {
    return this.repository.saveDecisions(decisions);
  }

  /**
   * Marks the plan's steps that are neither done nor skipped as skipped, saved together with
   * `alongWith` (the steps that replace them); returns the open steps as they were, in order.
   */
  skipOpenSteps(planId: string, alongWith: readonly StrategyDecision[] = []): Promise<StrategyDecision[]> {
    return this.unit(async () => {
      const now = new Date().toISOString();
      const open = stepsInOrder(await this.listDecisions(planId)).filter((d) => d.status !== 'done' && d.status !== 'skipped');
      await this.saveDecisions([...open.map((d) => ({ ...d, status: 'skipped' as const, updatedAt: now })), ...alongWith]);
      return open;
    });
  }

  /** Saves a decision's new status (and updatedAt) without rewriting its tool calls. */
  saveDecisionStatus(decision: Pick<StrategyDecision, 'id' | 'status' | 'updatedAt'>): Promise<void> {
    return this.repository.saveDecisionStatus(decision.id, decision.status, decision.updatedAt);
  }

  /** Saves a step's sub-tasks (its coding agent's last `plan` update; null: none) without rewriting the rest. */
  saveDecisionSubtasks(decisionId: string, subtasks: readonly Subtask[] | null): Promise<void> {
    return this.repository.saveDecisionSubtasks(decisionId, subtasks);
  }

  update(planId: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Promise<Plan> {
    return this.repository.update(planId, patch);
  }

  /** Moves the processing state, refusing transitions the state machine does not allow. */
  transition(planId: string, to: ProcessingState, patch: Partial<Omit<Plan, 'id' | 'createdAt'>> = {}, current?: Plan): Promise<Plan> {
    return this.unit(async () => {
      const plan = current ?? (await this.getPlan(planId));
      if (plan.processingState !== to && !canTransition(plan.processingState, to)) {
        throw new PlanError(
          `plan ${planId} is ${statusLabel(plan)}; it cannot become ${statusLabel({ phase: plan.phase, processingState: to })}`,
          'invalid_transition',
        );
      }
      const recovered = plan.processingState === 'errored' && to !== 'errored' && to !== 'cancelled';
      const cleared = recovered ? { errorMessage: null, errorDetails: clearCurrentError(plan.errorDetails) } : {};
      const waiting = to === 'paused' ? {} : { waitingFor: null };
      const next = await this.repository.update(planId, { ...cleared, ...waiting, ...patch, processingState: to });
      await this.events.publish(planId, 'state_changed', {
        from: plan.processingState,
        to,
        phase: next.phase,
        ...(plan.phase !== next.phase ? { fromPhase: plan.phase } : {}),
        ...(to === 'errored' && typeof next.errorDetails.category === 'string' ? { category: next.errorDetails.category } : {}),
        ...(to === 'paused' && next.waitingFor ? { waitingFor: next.waitingFor } : {}),
    });
    return next;
    });
  }

  /** Checks that the plan is in `phase` and in one of `states`, with a message an operator can act on. */
  requirePhase(plan: Plan, phase: Phase, states: readonly ProcessingState[], action = phase === 'apply' ? 'apply' : 'run'): void {
    if (plan.phase !== phase || !states.includes(plan.processingState)) throw new PlanError(wrongPhaseMessage(plan, action, phase, states), 'wrong_phase');
  }

  /**
   * Moves the plan into `phase`'s processing. `current` is the plan as the caller just read it (a
   * run reads its plan once per phase), else it is read here. Returns the plan as stored now.
   */
  beginPhase(planId: string, phase: Phase, from: readonly ProcessingState[] = ['queued'], current?: Plan): Promise<Plan> {
    return this.unit(async () => {
      const plan = current ?? (await this.getPlan(planId));
      this.requirePhase(plan, phase, from);
      return this.transition(planId, 'processing', {}, plan);
    });
  }

  /** Ends the current phase: the next phase is queued, and the last phase completes the plan. */
  completePhase(planId: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>> = {}, current?: Plan): Promise<Plan> {
    return this.unit(async () => {
      const plan = current ?? (await this.getPlan(planId));
      const next = PHASES[PHASES.indexOf(plan.phase) + 1];
      if (!next) return this.transition(planId, 'complete', patch, plan);
      return this.transition(planId, 'queued', { ...patch, phase: next }, plan);
    });
  }

  /** Adds a decision under `parentId` (the root when null): an operator's answer or a recovery, kept in the tree. */
  addDecisionUnder(
    planId: string,
    parentId: string | null,
    type: DecisionType,
    description: string,
    rationale: string,
    status: StrategyDecision['status'] = 'done',
  ): Promise<StrategyDecision | undefined> {
    return this.unit(async () => {
      const parent = parentId ?? (await this.getPlan(planId)).decisionRootId;
      if (!parent) return undefined;
      const siblings = (await this.listDecisions(planId)).filter((d) => d.parentId === parent);
      const now = new Date().toISOString();
      const decision: StrategyDecision = {
        id: newId(),
        planId,
        parentId: parent,
        type,
        order: siblings.length,
        description,
        rationale,
        toolCalls: [],
        status,
        createdAt: now,
        updatedAt: now,
      };
      await this.saveDecisions([decision]);
      return decision;
    });
  }

  /** Moves the plan to errored, merging details into what it already held. */
  fail(planId: string, message: string, details: Record<string, unknown>): Promise<Plan> {
    return this.unit(async () => {
      const plan = await this.getPlan(planId);
      return this.transition(planId, 'errored', {
        errorMessage: message,
        errorDetails: mergeErrorDetails(plan.errorDetails, details),
      }, plan);
    });
  }

  /** Manual recovery: errored -> queued, staying in the failed phase. */
  reset(planId: string): Promise<Plan> {
    return this.unit(async () => {
      const plan = await this.getPlan(planId);
      if (plan.processingState !== 'errored') {
        throw new PlanError(wrongStateMessage(plan, 'reset', requiredStatuses(plan.phase, ['errored'])), 'wrong_state');
      }
      return this.transition(planId, 'queued', {}, plan);
    });
  }

  cancel(planId: string): Promise<Plan> {
    return this.transition(planId, 'cancelled');
  }

  /** A unit of the repository's database whose events reach subscribers once it has committed. */
  unit<T>(fn: () => Promise<T>): Promise<T> {
    return this.events.deferDelivery(() => this.atomically(fn));
  }
}
