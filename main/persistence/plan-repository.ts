import { DECISION_STATUSES, DECISION_TYPES, type DecisionStatus, DecisionStatusSchema, type Phase, type Plan, PlanSchema, type ProcessingState, type StrategyDecision, StrategyDecisionSchema } from '../../shared/domain';
import { CheckSchema } from '../../shared/checks';
import { type Subtask, SubtaskSchema } from '../../shared/subtasks';
import { z } from 'zod';
import { parseOrThrow } from '../../shared/errors';
import type { PlanRepository, StepCounts } from '../engine/ports/plan-repository';
import type { SqliteDatabase } from './database';
import { fromJson, isConstraintError, prepare, toJson, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

export interface PlanQuery {
  phase?: Phase;
  processingState?: ProcessingState;
  offset?: number;
  limit?: number;
}

interface PlanRow {
  data: string;
}

/** A decision's row; `Json` is how the database hands back its JSON columns. */
export interface DecisionRow<Json = string> {
  id: string;
  plan_id: string;
  parent_id: string | null;
  type: string;
  sort_order: number;
  status: string;
  description: string;
  rationale: string;
  tool_calls: Json;
  check_spec: Json | null;
  subtasks: Json | null;
  created_at: string;
  updated_at: string;
}

type PlanPatch = Partial<Omit<Plan, 'id' | 'createdAt'>>;

/** Plans and their decision trees in SQLite. The plan is one JSON document; phase, state and dates are indexed copies. */
export class SqlitePlanRepository implements PlanRepository {
  private readonly insertPlan: Statement<[Record<string, unknown>]>;
  private readonly updatePlan: Statement<[Record<string, unknown>]>;
  private readonly selectPlan: Statement<[string], PlanRow>;
  private readonly selectPlans: Statement<[], PlanRow>;
  private readonly selectPlansInStates: Statement<[string], PlanRow>;
  private readonly queryPlans: Statement<[Record<string, unknown>], PlanRow>;
  private readonly countPlans: Statement<[], { n: number }>;
  private readonly upsertDecision: Statement<[Record<string, unknown>]>;
  private readonly selectDecisions: Statement<[string], DecisionRow>;
  private readonly updateTx: (id: string, patch: PlanPatch) => Plan;
  private readonly saveDecisionsTx: (decisions: readonly StrategyDecision[]) => void;
  private readonly updateDecisionStatus: Statement<[string, string, string]>;
  private readonly updateDecisionSubtasks: Statement<[string | null, string]>;
  private readonly countSteps: Statement<[string], StepCounts>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insertPlan = prepare(db, 
      `INSERT INTO plans (id, name, phase, processing_state, created_at, updated_at, data)
       VALUES (@id, @name, @phase, @processingState, @createdAt, @updatedAt, @data)`,
    );
    this.updatePlan = prepare(db, 
      `UPDATE plans SET name = @name, phase = @phase, processing_state = @processingState,
         updated_at = @updatedAt, data = @data WHERE id = @id`,
    );
    this.selectPlan = prepare(db, 'SELECT data FROM plans WHERE id = ?');
    this.selectPlans = prepare(db, 'SELECT data FROM plans ORDER BY created_at DESC, id DESC');
    this.selectPlansInStates = prepare(
      db,
      'SELECT data FROM plans WHERE processing_state IN (SELECT value FROM json_each(?)) ORDER BY created_at DESC, id DESC',
    );
    this.queryPlans = prepare(db, 
      `SELECT data FROM plans
       WHERE (@phase IS NULL OR phase = @phase) AND (@processingState IS NULL OR processing_state = @processingState)
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    );
    this.countPlans = prepare(db, 'SELECT COUNT(*) AS n FROM plans');
    this.upsertDecision = prepare(db, 
      `INSERT INTO decisions (id, plan_id, parent_id, type, sort_order, status, description, rationale, tool_calls, check_spec, subtasks, created_at, updated_at)
       VALUES (@id, @planId, @parentId, @type, @order, @status, @description, @rationale, @toolCalls, @checkSpec, @subtasks, @createdAt, @updatedAt)
       ON CONFLICT (id) DO UPDATE SET
         plan_id = excluded.plan_id, parent_id = excluded.parent_id, type = excluded.type,
         sort_order = excluded.sort_order, status = excluded.status, description = excluded.description,
         rationale = excluded.rationale, tool_calls = excluded.tool_calls, check_spec = excluded.check_spec, subtasks = excluded.subtasks,
         created_at = excluded.created_at, updated_at = excluded.updated_at`,
    );
    this.selectDecisions = prepare(db, 'SELECT * FROM decisions WHERE plan_id = ? ORDER BY sort_order, id');
    this.updateDecisionStatus = prepare(db, 'UPDATE decisions SET status = ?, updated_at = ? WHERE id = ?');
    this.updateDecisionSubtasks = prepare(db, 'UPDATE decisions SET subtasks = ? WHERE id = ?');
    this.countSteps = prepare(
      db,
      `SELECT COUNT(*) AS total, COALESCE(SUM(status = 'done'), 0) AS done, COALESCE(SUM(status IN ('failed', 'running')), 0) AS failedOrRunning
       FROM decisions WHERE plan_id = ? AND type = 'strategy_choice'`,
    );

    this.updateTx = writeTransaction(db, (id: string, patch: PlanPatch) => {
      const row = this.selectPlan.get(id);
      const current = row && readPlan(row);
      if (!current) throw new Error(`unknown plan ${id}`);
      // An undefined field means "not given": JSON would drop it and leave the plan invalid.
      const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      const next = parseOrThrow(
        PlanSchema,
        { ...current, ...given, id: current.id, createdAt: current.createdAt, updatedAt: new Date().toISOString() },
        'plan',
      );
      const params = planParams(next);
      this.updatePlan.run(params);
      // Hand back what get() will return: the JSON round trip, not the caller's objects.
      return readPlan({ data: params.data });
    });
    this.saveDecisionsTx = writeTransaction(db, (decisions: readonly StrategyDecision[]) => {
      for (const decision of decisions) {
        const d = parseOrThrow(StrategyDecisionSchema, decision, 'decision');
        const { check, subtasks, ...row } = d;
        this.upsertDecision.run({ ...row, toolCalls: toJson(d.toolCalls), checkSpec: check ? toJson(check) : null, subtasks: subtasks ? toJson(subtasks) : null });
      }
    });
  }

  insert(plan: Plan): Promise<void> {
    return this.connection.run(() => {
      const valid = parseOrThrow(PlanSchema, plan, 'plan');
      try {
        this.insertPlan.run(planParams(valid));
      } catch (error) {
        if (isConstraintError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) throw new Error(`plan ${plan.id} already exists`);
        throw error;
      }
    });
  }

  get(id: string): Promise<Plan | undefined> {
    return this.connection.run(() => {
      const row = this.selectPlan.get(id);
      return row && readPlan(row);
    });
  }

  /** Newest first. */
  list(): Promise<Plan[]> {
    return this.connection.run(() => this.selectPlans.all().map(readPlan));
  }

  listInStates(states: readonly ProcessingState[]): Promise<Plan[]> {
    return this.connection.run(() => this.selectPlansInStates.all(JSON.stringify(states)).map(readPlan));
  }

  /** A filtered page of plans, newest first. */
  query(query: PlanQuery = {}): Promise<Plan[]> {
    return this.connection.run(() =>
      this.queryPlans
        .all({
          phase: query.phase ?? null,
          processingState: query.processingState ?? null,
          limit: query.limit ?? -1,
          offset: query.offset ?? 0,
        })
        .map(readPlan),
    );
  }

  count(): Promise<number> {
    return this.connection.run(() => this.countPlans.get()?.n ?? 0);
  }

  update(id: string, patch: PlanPatch): Promise<Plan> {
    return this.connection.run(() => this.updateTx(id, patch));
  }

  /** One column pair, not the whole row: a decision's tool calls can be hundreds of kilobytes. */
  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): Promise<void> {
    return this.connection.run(() => {
      const valid = parseOrThrow(DecisionStatusSchema, status, 'status');
      if (this.updateDecisionStatus.run(valid, updatedAt, decisionId).changes === 0) throw new Error(`unknown decision ${decisionId}`);
    });
  }

  saveDecisionSubtasks(decisionId: string, subtasks: readonly Subtask[] | null): Promise<void> {
    return this.connection.run(() => {
      const valid = subtasks === null ? null : toJson(parseOrThrow(z.array(SubtaskSchema), subtasks, 'subtasks'));
      if (this.updateDecisionSubtasks.run(valid, decisionId).changes === 0) throw new Error(`unknown decision ${decisionId}`);
    });
  }

  saveDecisions(decisions: readonly StrategyDecision[]): Promise<void> {
    return this.connection.run(() => {
      if (decisions.length > 0) this.saveDecisionsTx(decisions);
    });
  }

  listDecisions(planId: string): Promise<StrategyDecision[]> {
    return this.connection.run(() => this.selectDecisions.all(planId).map((row) => readDecision({ ...row, tool_calls: fromJson(row.tool_calls), check_spec: row.check_spec === null ? null : fromJson(row.check_spec), subtasks: row.subtasks === null ? null : fromJson(row.subtasks) })));
  }

  /** Counted in SQL: a step's tool calls can be large, and facts and the plan list only count. */
  stepCounts(planId: string): Promise<StepCounts> {
    return this.connection.run(() => {
      const row = this.countSteps.get(planId);
      return { total: row?.total ?? 0, done: row?.done ?? 0, failedOrRunning: row?.failedOrRunning ?? 0 };
    });
  }
}

const DECISION_TYPE_SET: ReadonlySet<unknown> = new Set(DECISION_TYPES);
const DECISION_STATUS_SET: ReadonlySet<unknown> = new Set(DECISION_STATUSES);

function isToolCallList(value: unknown): value is StrategyDecision['toolCalls'] {
  if (!Array.isArray(value)) return false;
  for (const call of value as unknown[]) {
    if (typeof call !== 'object' || call === null) return false;
    const { tool, args } = call as Record<string, unknown>;
    if (typeof tool !== 'string' || tool === '' || typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  }
  return true;
}

/**
 * A stored decision, checked field by field: a plan's tree can hold 10,000 of them, and a schema
 * parse of each costs more than reading them. A row that fails the checks goes through
 * StrategyDecisionSchema for the usual error.
 */
/** A decision from its row, once the row's JSON columns are parsed. */
export function readDecision(row: DecisionRow<unknown>): StrategyDecision {
  const decision = {
    id: row.id,
    planId: row.plan_id,
    parentId: row.parent_id,
    type: row.type,
    order: row.sort_order,
    description: row.description,
    rationale: row.rationale,
    toolCalls: row.tool_calls,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.check_spec === null ? {} : { check: parseOrThrow(CheckSchema, row.check_spec, `decisions[${row.id}].check`) }),
    ...(row.subtasks === null || row.subtasks === undefined ? {} : { subtasks: parseOrThrow(z.array(SubtaskSchema), row.subtasks, `decisions[${row.id}].subtasks`) }),
  };
  const valid =
    row.id !== '' &&
    row.plan_id !== '' &&
    DECISION_TYPE_SET.has(row.type) &&
    DECISION_STATUS_SET.has(row.status) &&
    Number.isSafeInteger(row.sort_order) &&
    row.sort_order >= 0 &&
    isToolCallList(decision.toolCalls);
  return valid ? (decision as StrategyDecision) : parseOrThrow(StrategyDecisionSchema, decision, `decisions[${row.id}]`);
}

function planParams(plan: Plan): Record<string, unknown> & { data: string } {
  return {
    id: plan.id,
    name: plan.name,
    phase: plan.phase,
    processingState: plan.processingState,
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
    data: toJson(plan),
  };
}

function readPlan(row: PlanRow): Plan {
  return parseOrThrow(PlanSchema, fromJson(row.data), 'plans row');
}
