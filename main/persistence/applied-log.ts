import type { AppliedLog, AppliedRecord } from '../engine/changeset/review';
import type { SqliteDatabase } from './database';
import { fromJson, prepare, toJson, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

interface AppliedRow {
  path: string;
  hunks: string;
  content_hash: string | null;
  applied_at: string;
}

/** What each apply of a plan wrote, per path, in SQLite. */
export class SqliteAppliedLog implements AppliedLog {
  private readonly upsert: Statement<[string, string, string, string | null, string]>;
  private readonly selectForPlan: Statement<[string], AppliedRow>;
  private readonly recordTx: (planId: string, records: readonly AppliedRecord[]) => void;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.upsert = prepare(
      db,
      `INSERT INTO applied_changes (plan_id, path, hunks, content_hash, applied_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (plan_id, path) DO UPDATE SET hunks = excluded.hunks, content_hash = excluded.content_hash, applied_at = excluded.applied_at`,
    );
    this.selectForPlan = prepare(db, 'SELECT path, hunks, content_hash, applied_at FROM applied_changes WHERE plan_id = ? ORDER BY path');
    this.recordTx = writeTransaction(db, (planId: string, records: readonly AppliedRecord[]) => {
      for (const r of records) this.upsert.run(planId, r.path, toJson(r.hunks), r.contentHash, r.appliedAt);
    });
  }

  list(planId: string): Promise<AppliedRecord[]> {
    return this.connection.run(() => this.selectForPlan.all(planId).map((row) => ({
      path: row.path,
      hunks: (fromJson(row.hunks) as unknown[]).filter((h): h is number => Number.isInteger(h)),
      contentHash: row.content_hash,
      appliedAt: row.applied_at,
    })));
  }

  record(planId: string, records: readonly AppliedRecord[]): Promise<void> {
    return this.connection.run(() => this.recordTx(planId, records));
  }
}
