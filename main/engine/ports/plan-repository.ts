import type { DecisionStatus, Plan, ProcessingState, StrategyDecision } from '../../../shared/domain';
import type { Subtask } from '../../../shared/subtasks';

/** A plan's steps (strategy choices) counted by status. */
export interface StepCounts {
  total: number;
  done: number;
  failedOrRunning: number;
}

/** Persistence of plans and their decision trees. The SQLite repository implements the same contract. */
export interface PlanRepository {
  insert(plan: Plan): Promise<void>;
  get(id: string): Promise<Plan | undefined>;
  list(): Promise<Plan[]>;
  /** The plans in one of these processing states, newest first: a start-up reads only those, not every plan. */
  listInStates(states: readonly ProcessingState[]): Promise<Plan[]>;
  update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Promise<Plan>;
  /** Inserts or replaces decisions by id. */
  saveDecisions(decisions: readonly StrategyDecision[]): Promise<void>;
  /** Sets one saved decision's status, leaving the rest (its tool calls may be large) as stored. */
  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): Promise<void>;
  /** Sets one saved step's sub-tasks (null: none), leaving the rest as stored. */
  saveDecisionSubtasks(decisionId: string, subtasks: readonly Subtask[] | null): Promise<void>;
  listDecisions(planId: string): Promise<StrategyDecision[]>;
  /** How many steps the plan has, done, and failed or running, without reading the decisions. */
  stepCounts(planId: string): Promise<StepCounts>;
}
