import type { AppliedRecord, AppliedLog } from '../../engine/changeset/review';
import { type PgDatabase, toJsonParam } from './database';

/** What each apply of a plan wrote, per path, in PostgreSQL. */
export class PgAppliedLog implements AppliedLog {
  constructor(readonly db: PgDatabase) {}

  async list(planId: string): Promise<AppliedRecord[]> {
    const rows = await this.db.query<{ path: string; hunks: unknown; content_hash: string | null; applied_at: string }>(
      'SELECT path, hunks, content_hash, applied_at FROM applied_changes WHERE plan_id = $1 ORDER BY path COLLATE "C"',
      [planId],
    );
    return rows.map((row) => ({
      path: row.path,
      hunks: (Array.isArray(row.hunks) ? (row.hunks as unknown[]) : []).filter((h): h is number => Number.isInteger(h)),
      contentHash: row.content_hash,
      appliedAt: row.applied_at,
    }));
  }

  /** All records in one statement, so all or none are stored. */
  async record(planId: string, records: readonly AppliedRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.query(
      `INSERT INTO applied_changes (plan_id, path, hunks, content_hash, applied_at)
       SELECT $1, r.path, r.hunks, r.content_hash, r.applied_at FROM json_to_recordset($2::json) AS r(path text, hunks jsonb, content_hash text, applied_at text)
       ON CONFLICT (plan_id, path) DO UPDATE SET hunks = excluded.hunks, content_hash = excluded.content_hash, applied_at = excluded.applied_at`,
      [planId, toJsonParam(records.map((r) => ({ path: r.path, hunks: r.hunks, content_hash: r.contentHash, applied_at: r.appliedAt })))],
    );
  }
}
