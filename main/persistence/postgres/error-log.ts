import type { ErrorLog } from '../../engine/recovery';
import { type ErrorRecord, ErrorRecordSchema } from '../../../shared/domain';
import { parseOrThrow } from '../../../shared/errors';
import { type PgDatabase, toJsonParam } from './database';

interface ErrorRow {
  id: string;
  plan_id: string;
  phase: string;
  decision_id: string | null;
  attempt: number;
  category: string;
  retriable: boolean;
  recovery_action: string;
  message: string;
  stack: string | null;
  hint: string;
  next: unknown;
  outcome: string;
  created_at: string;
}

/** Error records in PostgreSQL, listed in the order they were recorded. */
export class PgErrorLog implements ErrorLog {
  constructor(readonly db: PgDatabase) {}

  async record(record: ErrorRecord): Promise<void> {
    const r = parseOrThrow(ErrorRecordSchema, record, 'error record');
    await this.db.query(
      `INSERT INTO error_records (id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action, message, stack, hint, next, outcome, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14)`,
      [r.id, r.planId, r.phase, r.decisionId, r.attempt, r.category, r.retriable, r.recoveryAction, r.message, r.stack, r.hint, r.next ? toJsonParam(r.next) : null, r.outcome, r.createdAt],
    );
  }

  async listForPlan(planId: string): Promise<ErrorRecord[]> {
    const rows = await this.db.query<ErrorRow>(
      `SELECT id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action, message, stack, hint, next, outcome, created_at
       FROM error_records WHERE plan_id = $1 ORDER BY pos`,
      [planId],
    );
    return rows.map((row) =>
      parseOrThrow(
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
      ),
    );
  }
}
