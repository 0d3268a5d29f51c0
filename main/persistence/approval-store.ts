import { type Approval, ApprovalSchema } from '../../shared/approvals';
import { parseOrThrow } from '../../shared/errors';
import { type ApprovalStore, checkAnswerable } from '../engine/ports/approvals';
import type { SqliteDatabase } from './database';
import { fromJson, prepare, toJson, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

/** Approvals in SQLite: the request and its answer as one JSON document, with the plan and status indexed. */
export class SqliteApprovalStore implements ApprovalStore {
  private readonly insert: Statement<[string, string, string, string, string]>;
  private readonly selectOne: Statement<[string], { data: string }>;
  private readonly selectForPlan: Statement<[string], { data: string }>;
  private readonly save: Statement<[string, string, string]>;
  private readonly updateTx: (id: string, patch: Parameters<ApprovalStore['update']>[1]) => Approval;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 'INSERT INTO approvals (id, plan_id, status, created_at, data) VALUES (?, ?, ?, ?, ?)');
    this.selectOne = prepare(db, 'SELECT data FROM approvals WHERE id = ?');
    this.selectForPlan = prepare(db, 'SELECT data FROM approvals WHERE plan_id = ? ORDER BY pos');
    this.save = prepare(db, 'UPDATE approvals SET status = ?, data = ? WHERE id = ?');
    this.updateTx = writeTransaction(db, (id: string, patch: Parameters<ApprovalStore['update']>[1]) => {
      const row = this.selectOne.get(id);
      const current = row && read(row);
      if (!current) throw new Error(`unknown approval ${id}`);
      checkAnswerable(current, patch);
      const next = parseOrThrow(ApprovalSchema, { ...current, ...patch }, 'approval');
      this.save.run(next.status, toJson(next), id);
      return next;
    });
  }

  add(approval: Approval): Promise<void> {
    return this.connection.run(() => {
      const valid = parseOrThrow(ApprovalSchema, approval, 'approval');
      this.insert.run(valid.id, valid.planId, valid.status, valid.createdAt, toJson(valid));
    });
  }

  get(id: string): Promise<Approval | undefined> {
    return this.connection.run(() => {
      const row = this.selectOne.get(id);
      return row && read(row);
    });
  }

  listForPlan(planId: string): Promise<Approval[]> {
    return this.connection.run(() => this.selectForPlan.all(planId).map(read));
  }

  update(id: string, patch: Parameters<ApprovalStore['update']>[1]): Promise<Approval> {
    return this.connection.run(() => this.updateTx(id, patch));
  }
}

function read(row: { data: string }): Approval {
  return parseOrThrow(ApprovalSchema, fromJson(row.data), 'approvals row');
}
