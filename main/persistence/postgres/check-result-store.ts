import type { CheckResultStore } from '../../engine/checks/check-store';
import { type CheckResult, CheckResultSchema } from '../../../shared/checks';
import { parseOrThrow } from '../../../shared/errors';
import { type PgDatabase, toJsonParam } from './database';

/** Check results in PostgreSQL: each result as one jsonb document, indexed by plan in the order they ran. */
export class PgCheckResultStore implements CheckResultStore {
  constructor(readonly db: PgDatabase) {}

  async record(result: CheckResult): Promise<void> {
    const r = parseOrThrow(CheckResultSchema, result, 'check result');
    await this.db.query('INSERT INTO check_results (id, plan_id, run_id, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)', [r.id, r.planId, r.runId, r.finishedAt, toJsonParam(r)]);
  }

  async listForPlan(planId: string): Promise<CheckResult[]> {
    const rows = await this.db.query<{ data: unknown }>('SELECT data FROM check_results WHERE plan_id = $1 ORDER BY pos', [planId]);
    return rows.map((row) => parseOrThrow(CheckResultSchema, row.data, 'check_results row'));
  }
}
