import { type CheckResult, CheckResultSchema } from '../../shared/checks';
import { parseOrThrow } from '../../shared/errors';
import type { CheckResultStore } from '../engine/checks/check-store';
import type { SqliteDatabase } from './database';
import { fromJson, prepare, toJson, type Statement, connectionOf, type SqliteConnection } from './sql';

/** Check results in SQLite: each result as one JSON document, indexed by plan in the order they ran. */
export class SqliteCheckResultStore implements CheckResultStore {
  private readonly insert: Statement<[string, string, string, string, string]>;
  private readonly selectForPlan: Statement<[string], { data: string }>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 'INSERT INTO check_results (id, plan_id, run_id, created_at, data) VALUES (?, ?, ?, ?, ?)');
    this.selectForPlan = prepare(db, 'SELECT data FROM check_results WHERE plan_id = ? ORDER BY pos');
  }

  record(result: CheckResult): Promise<void> {
    return this.connection.run(() => {
      const valid = parseOrThrow(CheckResultSchema, result, 'check result');
      this.insert.run(valid.id, valid.planId, valid.runId, valid.finishedAt, toJson(valid));
    });
  }

  listForPlan(planId: string): Promise<CheckResult[]> {
    return this.connection.run(() => this.selectForPlan.all(planId).map((row) => parseOrThrow(CheckResultSchema, fromJson(row.data), 'check_results row')));
  }
}
