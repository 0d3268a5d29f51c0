import type { ToolTally } from '../../shared/contract';
import { CONFINEMENTS, type ToolInvocation, ToolInvocationSchema } from '../../shared/tool-calls';
import { parseOrThrow } from '../../shared/errors';
import type { InvocationLog } from '../engine/ports/invocation-log';
import type { SqliteDatabase } from './database';
import { fromBit, fromJson, prepare, toBit, toJson, type Statement, connectionOf, type SqliteConnection } from './sql';

/** An invocation's row with its JSON and boolean as JavaScript values; has_result tells no result from a null one. */
export interface InvocationFields {
  id: string;
  plan_id: string;
  decision_id: string | null;
  tool: string;
  args: unknown;
  ok: boolean;
  has_result: boolean;
  result: unknown;
  error: unknown;
  started_at: string;
  duration_ms: number;
  confinement: string | null;
}

interface InvocationRow {
  id: string;
  plan_id: string;
  decision_id: string | null;
  tool: string;
  args: string;
  ok: number;
  result: string | null;
  error: string | null;
  started_at: string;
  duration_ms: number;
  confinement: string | null;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A well-formed invocation, checked field by field (what ToolInvocationSchema checks, without a
 * parse on every tool call); anything else goes through the schema for its error message.
 */
function isInvocation(value: unknown): value is ToolInvocation {
  if (!isPlainObject(value)) return false;
  const { id, planId, decisionId, tool, args, ok, error, startedAt, durationMs, confinement } = value;
  const errorOk =
    error === null ||
    (isPlainObject(error) && typeof error.name === 'string' && typeof error.message === 'string' && (error.category === undefined || typeof error.category === 'string'));
  return (
    typeof id === 'string' && id !== '' &&
    typeof planId === 'string' && planId !== '' &&
    (decisionId === null || typeof decisionId === 'string') &&
    typeof tool === 'string' && tool !== '' &&
    isPlainObject(args) &&
    typeof ok === 'boolean' &&
    errorOk &&
    typeof startedAt === 'string' &&
    typeof durationMs === 'number' && durationMs >= 0 &&
    (confinement === undefined || (CONFINEMENTS as readonly unknown[]).includes(confinement))
  );
}

/** Tool invocations in SQLite, listed in the order they were recorded. */
export class SqliteInvocationLog implements InvocationLog {
  private readonly insert: Statement<[Record<string, unknown>]>;
  private readonly selectForPlan: Statement<[string], InvocationRow>;
  private readonly selectForDecision: Statement<[string], InvocationRow>;
  private readonly selectOne: Statement<[string], InvocationRow>;
  private readonly selectTallies: Statement<[string], { decision_id: string; ran: number; failed: number }>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 
      `INSERT INTO tool_invocations (id, plan_id, decision_id, tool, args, ok, result, error, started_at, duration_ms, confinement)
       VALUES (@id, @planId, @decisionId, @tool, @args, @ok, @result, @error, @startedAt, @durationMs, @confinement)`,
    );
    const columns = 'id, plan_id, decision_id, tool, args, ok, result, error, started_at, duration_ms, confinement';
    this.selectForPlan = prepare(db, `SELECT ${columns} FROM tool_invocations WHERE plan_id = ? ORDER BY pos`);
    this.selectForDecision = prepare(db, `SELECT ${columns} FROM tool_invocations WHERE decision_id = ? ORDER BY pos`);
    this.selectOne = prepare(db, `SELECT ${columns} FROM tool_invocations WHERE id = ?`);
    this.selectTallies = prepare(
      db,
      `SELECT decision_id, COUNT(*) AS ran, SUM(ok = 0) AS failed FROM tool_invocations
       WHERE plan_id = ? AND decision_id IS NOT NULL GROUP BY decision_id ORDER BY MIN(pos)`,
    );
  }

  record(invocation: ToolInvocation): Promise<void> {
    return this.connection.run(() => {
      const valid = isInvocation(invocation) ? invocation : parseOrThrow(ToolInvocationSchema, invocation, 'invocation');
      this.insert.run({
        id: valid.id,
        planId: valid.planId,
        decisionId: valid.decisionId,
        tool: valid.tool,
        args: toJson(valid.args),
        ok: toBit(valid.ok),
        // SQL NULL means "no result"; a result of null is stored as the JSON text 'null'.
        result: valid.result === undefined ? null : toJson(valid.result),
        error: valid.error === null ? null : toJson(valid.error),
        startedAt: valid.startedAt,
        durationMs: valid.durationMs,
        confinement: valid.confinement ?? null,
      });
    });
  }

  listForPlan(planId: string): Promise<ToolInvocation[]> {
    return this.connection.run(() => this.selectForPlan.all(planId).map(readRow));
  }

  listForDecision(decisionId: string): Promise<ToolInvocation[]> {
    return this.connection.run(() => this.selectForDecision.all(decisionId).map(readRow));
  }

  talliesForPlan(planId: string): Promise<ToolTally[]> {
    return this.connection.run(() => this.selectTallies.all(planId).map((row) => ({ decisionId: row.decision_id, ran: row.ran, failed: row.failed })));
  }

  get(id: string): Promise<ToolInvocation | undefined> {
    return this.connection.run(() => {
      const row = this.selectOne.get(id);
      return row && readRow(row);
    });
  }
}

// SQLite keeps JSON as text, ok as 0/1, and no result as NULL (a null result is the text 'null').
function readRow(row: InvocationRow): ToolInvocation {
  return readInvocation({
    ...row,
    args: fromJson(row.args),
    ok: fromBit(row.ok),
    has_result: row.result !== null,
    result: row.result === null ? undefined : fromJson(row.result),
    error: row.error === null ? null : fromJson(row.error),
  });
}

/** An invocation from its row's values, as the SQLite and PostgreSQL logs read them. */
export function readInvocation(row: InvocationFields): ToolInvocation {
  return parseOrThrow(
    ToolInvocationSchema,
    {
      id: row.id,
      planId: row.plan_id,
      decisionId: row.decision_id,
      tool: row.tool,
      args: row.args,
      ok: row.ok,
      ...(row.has_result ? { result: row.result } : {}),
      error: row.error,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      ...(row.confinement === null ? {} : { confinement: row.confinement }),
    },
    `tool_invocations[${row.id}]`,
  );
}
