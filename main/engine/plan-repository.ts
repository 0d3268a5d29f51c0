import type { DecisionStatus, Plan, ProcessingState, StrategyDecision } from '../../shared/domain';

/** A plan's steps (strategy choices) counted by status. */
export interface StepCounts {
  total: number;
  done: number;
  failedOrRunning: number;
}

/** Persistence of plans and their decision trees. The SQLite repository implements the same contract. */
export interface PlanRepository {
  insert(plan: Plan): void;
  get(id: string): Plan | undefined;
  list(): Plan[];
  /** The plans in one of these processing states, newest first: a start-up reads only those, not every plan. */
  listInStates(states: readonly ProcessingState[]): Plan[];
  update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Plan;
  /** Inserts or replaces decisions by id. */
  saveDecisions(decisions: readonly StrategyDecision[]): void;
  /** Sets one saved decision's status, leaving the rest (its tool calls may be large) as stored. */
  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): void;
  listDecisions(planId: string): StrategyDecision[];
  /** How many steps the plan has, done, and failed or running, without reading the decisions. */
  stepCounts(planId: string): StepCounts;
}
