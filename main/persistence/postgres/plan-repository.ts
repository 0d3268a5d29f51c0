import { type DecisionStatus, DecisionStatusSchema, type Plan, PlanSchema, type ProcessingState, type StrategyDecision, StrategyDecisionSchema } from '../../../shared/domain';
import { parseOrThrow } from '../../../shared/errors';
import { type Subtask, SubtaskSchema } from '../../../shared/subtasks';
import { z } from 'zod';
import type { StepCounts, PlanRepository } from '../../engine/ports/plan-repository';
import { type DecisionRow, type PlanQuery, readDecision } from '../plan-repository';
import { isUniqueViolation, type PgDatabase, toJsonParam } from './database';

type PlanPatch = Partial<Omit<Plan, 'id' | 'createdAt'>>;

const PLAN_ORDER = 'ORDER BY created_at DESC, id DESC';

/** Plans and their decision trees in PostgreSQL: the plan is one jsonb document; phase, state and dates are indexed copies. */
export class PgPlanRepository implements PlanRepository {
  constructor(readonly db: PgDatabase) {}

  async insert(plan: Plan): Promise<void> {
    const p = parseOrThrow(PlanSchema, plan, 'plan');
    try {
      await this.db.query(
        'INSERT INTO plans (id, name, phase, processing_state, created_at, updated_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)',
        [p.id, p.name, p.phase, p.processingState, p.createdAt, p.updatedAt, toJsonParam(p)],
      );
    } catch (error) {
      if (isUniqueViolation(error, 'plans_pkey')) throw new Error(`plan ${plan.id} already exists`);
      throw error;
    }
  }

  async get(id: string): Promise<Plan | undefined> {
    const row = await this.db.one<{ data: unknown }>('SELECT data FROM plans WHERE id = $1', [id]);
    return row && readPlan(row);
  }

  /** Newest first. */
  async list(): Promise<Plan[]> {
    return (await this.db.query<{ data: unknown }>(`SELECT data FROM plans ${PLAN_ORDER}`)).map(readPlan);
  }

  async listInStates(states: readonly ProcessingState[]): Promise<Plan[]> {
    const rows = await this.db.query<{ data: unknown }>(`SELECT data FROM plans WHERE processing_state = ANY($1::text[]) ${PLAN_ORDER}`, [states]);
    return rows.map(readPlan);
  }

  /** A filtered page of plans, newest first. */
  async query(query: PlanQuery = {}): Promise<Plan[]> {
    const rows = await this.db.query<{ data: unknown }>(
      `SELECT data FROM plans WHERE ($1::text IS NULL OR phase = $1) AND ($2::text IS NULL OR processing_state = $2)
       ${PLAN_ORDER} LIMIT $3 OFFSET $4`,
      [query.phase ?? null, query.processingState ?? null, query.limit ?? null, query.offset ?? 0],
    );
    return rows.map(readPlan);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM plans'))?.n ?? 0;
  }

  /** Read, merge and write under the row's lock, so two processes' patches do not lose each other. */
  update(id: string, patch: PlanPatch): Promise<Plan> {
    return this.db.transaction(async () => {
      const row = await this.db.one<{ data: unknown }>('SELECT data FROM plans WHERE id = $1 FOR UPDATE', [id]);
      if (!row) throw new Error(`unknown plan ${id}`);
      const current = readPlan(row);
      // An undefined field means "not given": JSON would drop it and leave the plan invalid.
      const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const next = parseOrThrow(PlanSchema, { ...current, ...given, id: current.id, createdAt: current.createdAt, updatedAt: new Date().toISOString() }, 'plan');
      const data = toJsonParam(next);
      await this.db.query('UPDATE plans SET name = $2, phase = $3, processing_state = $4, updated_at = $5, data = $6::jsonb WHERE id = $1', [
        id,
        next.name,
        next.phase,
        next.processingState,
        next.updatedAt,
        data,
      ]);
      // Hand back what get() will return: the JSON round trip, not the caller's objects.
      return readPlan({ data: JSON.parse(data) as unknown });
    });
  }

  /** One column pair, not the whole row: a decision's tool calls can be hundreds of kilobytes. */
  async saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): Promise<void> {
    const valid = parseOrThrow(DecisionStatusSchema, status, 'status');
    const rows = await this.db.query('UPDATE decisions SET status = $1, updated_at = $2 WHERE id = $3 RETURNING id', [valid, updatedAt, decisionId]);
    if (rows.length === 0) throw new Error(`unknown decision ${decisionId}`);
  }

  async saveDecisionSubtasks(decisionId: string, subtasks: readonly Subtask[] | null): Promise<void> {
    const valid = subtasks === null ? null : JSON.stringify(parseOrThrow(z.array(SubtaskSchema), subtasks, 'subtasks'));
    const rows = await this.db.query('UPDATE decisions SET subtasks = $1::jsonb WHERE id = $2 RETURNING id', [valid, decisionId]);
    if (rows.length === 0) throw new Error(`unknown decision ${decisionId}`);
  }

  /** Inserts or replaces decisions by id, all in one statement. */
  async saveDecisions(decisions: readonly StrategyDecision[]): Promise<void> {
    if (decisions.length === 0) return;
    const rows = decisions.map((decision) => {
      const d = parseOrThrow(StrategyDecisionSchema, decision, 'decision');
      return {
        id: d.id,
        plan_id: d.planId,
        parent_id: d.parentId,
        type: d.type,
        sort_order: d.order,
        status: d.status,
        description: d.description,
        rationale: d.rationale,
        tool_calls: d.toolCalls,
        check_spec: d.check ?? null,
        subtasks: d.subtasks ?? null,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      };
    });
    // One json array expanded into rows: a plan's tree can hold thousands of decisions.
    await this.db.query(
      `INSERT INTO decisions (id, plan_id, parent_id, type, sort_order, status, description, rationale, tool_calls, check_spec, subtasks, created_at, updated_at)
       SELECT r.id, r.plan_id, r.parent_id, r.type, r.sort_order, r.status, r.description, r.rationale, r.tool_calls, r.check_spec, r.subtasks, r.created_at, r.updated_at
       FROM json_populate_recordset(NULL::decisions, $1::json) AS r
       ON CONFLICT (id) DO UPDATE SET
         plan_id = excluded.plan_id, parent_id = excluded.parent_id, type = excluded.type, sort_order = excluded.sort_order,
         status = excluded.status, description = excluded.description, rationale = excluded.rationale, tool_calls = excluded.tool_calls,
         check_spec = excluded.check_spec, subtasks = excluded.subtasks, created_at = excluded.created_at, updated_at = excluded.updated_at`,
      [toJsonParam(rows)],
    );
  }

  async listDecisions(planId: string): Promise<StrategyDecision[]> {
    return (await this.db.query<DecisionRow<unknown>>('SELECT * FROM decisions WHERE plan_id = $1 ORDER BY sort_order, id', [planId])).map(readDecision);
  }

  /** Counted in SQL: a step's tool calls can be large, and facts and the plan list only count. */
  async stepCounts(planId: string): Promise<StepCounts> {
    const row = await this.db.one<{ total: number; done: number; failedOrRunning: number }>(
      `SELECT count(*) AS total, count(*) FILTER (WHERE status = 'done') AS done,
              count(*) FILTER (WHERE status IN ('failed', 'running')) AS "failedOrRunning"
       FROM decisions WHERE plan_id = $1 AND type = 'strategy_choice'`,
      [planId],
    );
    return { total: row?.total ?? 0, done: row?.done ?? 0, failedOrRunning: row?.failedOrRunning ?? 0 };
  }
}

function readPlan(row: { data: unknown }): Plan {
  return parseOrThrow(PlanSchema, row.data, 'plans row');
}
