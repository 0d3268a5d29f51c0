import { type ErrorRecord, ErrorRecordSchema } from '../../shared/error-records';
import { parseOrThrow } from '../../shared/errors';
import type { ErrorLog } from '../engine/ports/recovery';
import type { SqliteDatabase } from './database';
import { fromBit, fromJson, prepare, toBit, toJson, type Statement, connectionOf, type SqliteConnection } from './sql';

/** An error record's row; `Flag` and `Json` are how the database hands back a boolean and a JSON value. */
export interface ErrorRow<Flag = number, Json = string | null> {
  id: string;
  plan_id: string;
  phase: string;
  decision_id: string | null;
  attempt: number;
  category: string;
  retriable: Flag;
  recovery_action: string;
  message: string;
  stack: string | null;
  hint: string;
  next: Json;
  outcome: string;
  created_at: string;
}

/** Error records in SQLite, listed in the order they were recorded, so history survives restarts. */
export class SqliteErrorLog implements ErrorLog {
  private readonly insert: Statement<[Record<string, unknown>]>;
  private readonly selectForPlan: Statement<[string], ErrorRow>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 
      `INSERT INTO error_records (id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action,
         message, stack, hint, next, outcome, created_at)
       VALUES (@id, @planId, @phase, @decisionId, @attempt, @category, @retriable, @recoveryAction,
         @message, @stack, @hint, @next, @outcome, @createdAt)`,
    );
    this.selectForPlan = prepare(db, 
      `SELECT id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action, message, stack, hint,
         next, outcome, created_at FROM error_records WHERE plan_id = ? ORDER BY pos`,
    );
  }

  record(record: ErrorRecord): Promise<void> {
    return this.connection.run(() => {
      const valid = parseOrThrow(ErrorRecordSchema, record, 'error record');
      this.insert.run({ ...valid, retriable: toBit(valid.retriable), next: valid.next ? toJson(valid.next) : null });
    });
  }

  listForPlan(planId: string): Promise<ErrorRecord[]> {
    return this.connection.run(() =>
      this.selectForPlan.all(planId).map((row) => readErrorRecord({ ...row, retriable: fromBit(row.retriable), next: row.next === null ? null : fromJson(row.next) })),
    );
  }
}

/** An error record from its row, once the row's boolean and JSON are JavaScript values. */
export function readErrorRecord(row: ErrorRow<boolean, unknown>): ErrorRecord {
  return parseOrThrow(
    ErrorRecordSchema,
    {
      id: row.id,
      planId: row.plan_id,
      phase: row.phase,
      decisionId: row.decision_id,
      attempt: row.attempt,
      category: row.category,
      retriable: row.retriable,
      recoveryAction: row.recovery_action,
      message: row.message,
      stack: row.stack,
      hint: row.hint,
      next: row.next,
      outcome: row.outcome,
      createdAt: row.created_at,
    },
    `error_records[${row.id}]`,
  );
}
