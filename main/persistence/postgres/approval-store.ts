import { type Approval, ApprovalSchema } from '../../../shared/approvals';
import { parseOrThrow } from '../../../shared/errors';
import { type ApprovalStore, checkAnswerable } from '../../engine/ports/approvals';
import { type PgDatabase, toJsonParam } from './database';

type ApprovalPatch = Parameters<ApprovalStore['update']>[1];

/** Approvals in PostgreSQL: the request and its answer as one jsonb document, with the plan and status indexed. */
export class PgApprovalStore implements ApprovalStore {
  constructor(readonly db: PgDatabase) {}

  async add(approval: Approval): Promise<void> {
    const a = parseOrThrow(ApprovalSchema, approval, 'approval');
    await this.db.query('INSERT INTO approvals (id, plan_id, status, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)', [
      a.id,
      a.planId,
      a.status,
      a.createdAt,
      toJsonParam(a),
    ]);
  }

  async get(id: string): Promise<Approval | undefined> {
    const row = await this.db.one<{ data: unknown }>('SELECT data FROM approvals WHERE id = $1', [id]);
    return row && read(row);
  }

  async listForPlan(planId: string): Promise<Approval[]> {
    return (await this.db.query<{ data: unknown }>('SELECT data FROM approvals WHERE plan_id = $1 ORDER BY pos', [planId])).map(read);
  }

  /** Under the row's lock: two consoles answering at once do not lose each other's fields. */
  update(id: string, patch: ApprovalPatch): Promise<Approval> {
    return this.db.transaction(async () => {
      const row = await this.db.one<{ data: unknown }>('SELECT data FROM approvals WHERE id = $1 FOR UPDATE', [id]);
      if (!row) throw new Error(`unknown approval ${id}`);
      checkAnswerable(read(row), patch);
      const next = parseOrThrow(ApprovalSchema, { ...read(row), ...patch }, 'approval');
      await this.db.query('UPDATE approvals SET status = $1, data = $2::jsonb WHERE id = $3', [next.status, toJsonParam(next), id]);
      return next;
    });
  }
}

function read(row: { data: unknown }): Approval {
  return parseOrThrow(ApprovalSchema, row.data, 'approvals row');
}
