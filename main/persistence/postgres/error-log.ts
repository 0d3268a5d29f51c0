import type { ErrorLog } from '../../engine/ports/recovery';
import { type ErrorRecord, ErrorRecordSchema } from '../../../shared/error-records';
import { parseOrThrow } from '../../../shared/errors';
import { type ErrorRow, readErrorRecord } from '../error-log';
import { type PgDatabase, toJsonParam } from './database';

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
    const rows = await this.db.query<ErrorRow<boolean, unknown>>(
      `SELECT id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action, message, stack, hint, next, outcome, created_at
       FROM error_records WHERE plan_id = $1 ORDER BY pos`,
      [planId],
    );
    return rows.map(readErrorRecord);
  }
}
