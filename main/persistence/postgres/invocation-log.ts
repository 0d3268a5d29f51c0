import type { InvocationLog } from '../../engine/ports/invocation-log';
import type { ToolTally } from '../../../shared/contract';
import { type ToolInvocation, ToolInvocationSchema } from '../../../shared/tool-calls';
import { parseOrThrow } from '../../../shared/errors';
import { type InvocationFields, readInvocation } from '../invocation-log';
import type { PgDatabase } from './database';
import { toJsonParam } from './database';

// has_result tells SQL NULL ("no result") from a stored JSON null.
const COLUMNS = 'id, plan_id, decision_id, tool, args, ok, result IS NOT NULL AS has_result, result, error, started_at, duration_ms, confinement';

/** Tool invocations in PostgreSQL, listed in the order they were recorded. */
export class PgInvocationLog implements InvocationLog {
  constructor(readonly db: PgDatabase) {}

  async record(invocation: ToolInvocation): Promise<void> {
    const v = parseOrThrow(ToolInvocationSchema, invocation, 'invocation');
    await this.db.query(
      `INSERT INTO tool_invocations (id, plan_id, decision_id, tool, args, ok, result, error, started_at, duration_ms, confinement)
       VALUES ($1, $2, $3, $4, $5::json, $6, $7::json, $8::json, $9, $10, $11)`,
      [
        v.id,
        v.planId,
        v.decisionId,
        v.tool,
        toJsonParam(v.args),
        v.ok,
        v.result === undefined ? null : toJsonParam(v.result),
        v.error === null ? null : toJsonParam(v.error),
        v.startedAt,
        v.durationMs,
        v.confinement ?? null,
      ],
    );
  }

  async listForPlan(planId: string): Promise<ToolInvocation[]> {
    return (await this.db.query<InvocationFields>(`SELECT ${COLUMNS} FROM tool_invocations WHERE plan_id = $1 ORDER BY pos`, [planId])).map(readInvocation);
  }

  async listForDecision(decisionId: string): Promise<ToolInvocation[]> {
    return (await this.db.query<InvocationFields>(`SELECT ${COLUMNS} FROM tool_invocations WHERE decision_id = $1 ORDER BY pos`, [decisionId])).map(readInvocation);
  }

  async talliesForPlan(planId: string): Promise<ToolTally[]> {
    const rows = await this.db.query<{ decision_id: string; ran: number; failed: number }>(
      `SELECT decision_id, count(*) AS ran, count(*) FILTER (WHERE NOT ok) AS failed FROM tool_invocations
       WHERE plan_id = $1 AND decision_id IS NOT NULL GROUP BY decision_id ORDER BY min(pos)`,
      [planId],
    );
    return rows.map((row) => ({ decisionId: row.decision_id, ran: row.ran, failed: row.failed }));
  }

  async get(id: string): Promise<ToolInvocation | undefined> {
    const row = await this.db.one<InvocationFields>(`SELECT ${COLUMNS} FROM tool_invocations WHERE id = $1`, [id]);
    return row && readInvocation(row);
  }
}
