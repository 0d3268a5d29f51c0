import type { DecisionStatus, Plan, StrategyDecision } from '../../shared/domain';

/** Persistence of plans and their decision trees. The SQLite repository implements the same contract. */
export interface PlanRepository {
  insert(plan: Plan): void;
  get(id: string): Plan | undefined;
  list(): Plan[];
  update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Plan;
  /** Inserts or replaces decisions by id. */
  saveDecisions(decisions: readonly StrategyDecision[]): void;
  /** Sets one saved decision's status, leaving the rest (its tool calls may be large) as stored. */
  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): void;
  listDecisions(planId: string): StrategyDecision[];
}
