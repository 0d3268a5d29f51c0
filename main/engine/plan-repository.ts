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

export class InMemoryPlanRepository implements PlanRepository {
  private readonly plans = new Map<string, Plan>();
  private readonly decisions = new Map<string, StrategyDecision>();

  insert(plan: Plan): void {
    if (this.plans.has(plan.id)) throw new Error(`plan ${plan.id} already exists`);
    this.plans.set(plan.id, structuredClone(plan));
  }

  get(id: string): Plan | undefined {
    const plan = this.plans.get(id);
    return plan && structuredClone(plan);
  }

  list(): Plan[] {
    return [...this.plans.values()].map((p) => structuredClone(p)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Plan {
    const plan = this.plans.get(id);
    if (!plan) throw new Error(`unknown plan ${id}`);
    const next = { ...plan, ...structuredClone(patch), updatedAt: new Date().toISOString() };
    this.plans.set(id, next);
    return structuredClone(next);
  }

  saveDecisions(decisions: readonly StrategyDecision[]): void {
    for (const decision of decisions) this.decisions.set(decision.id, structuredClone(decision));
  }

  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): void {
    const decision = this.decisions.get(decisionId);
    if (!decision) throw new Error(`unknown decision ${decisionId}`);
    this.decisions.set(decisionId, { ...decision, status, updatedAt });
  }

  listDecisions(planId: string): StrategyDecision[] {
    return [...this.decisions.values()]
      .filter((d) => d.planId === planId)
      .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))
      .map((d) => structuredClone(d));
  }
}
