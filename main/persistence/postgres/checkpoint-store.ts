import { type CheckpointSummary, CheckpointSummarySchema } from '../../../shared/checkpoints';
import { parseOrThrow } from '../../../shared/errors';
import type { RewindJournal, StoredCheckpoint, CheckpointStore } from '../../engine/checkpoints/checkpoint-store';
import { type PgDatabase, toJsonParam } from './database';

type State = Pick<StoredCheckpoint, 'changesetId' | 'decisions' | 'usage'>;

/** Checkpoints in PostgreSQL: the summary, the delta of the sandbox's files and the plan's state, one row per plan and step. */
export class PgCheckpointStore implements CheckpointStore {
  constructor(readonly db: PgDatabase) {}

  /** Replaces the checkpoints of its step and later ones, in one transaction. */
  add(checkpoint: StoredCheckpoint): Promise<void> {
    const { delta, changesetId, decisions, usage, ...summary } = checkpoint;
    const valid = parseOrThrow(CheckpointSummarySchema, summary, 'checkpoint');
    return this.db.transaction(async () => {
      await this.db.query('DELETE FROM checkpoints WHERE plan_id = $1 AND step > $2', [valid.planId, valid.step - 1]);
      await this.db.query('INSERT INTO checkpoints (id, plan_id, step, summary, delta, state) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb)', [
        valid.id,
        valid.planId,
        valid.step,
        toJsonParam(valid),
        toJsonParam(delta),
        toJsonParam({ changesetId, decisions, usage } satisfies State),
      ]);
    });
  }

  async list(planId: string): Promise<StoredCheckpoint[]> {
    const rows = await this.db.query<{ summary: unknown; delta: unknown; state: unknown }>('SELECT summary, delta, state FROM checkpoints WHERE plan_id = $1 ORDER BY step', [planId]);
    return rows.map((row) => ({ ...summaryOf(row), delta: row.delta as StoredCheckpoint['delta'], ...(row.state as State) }));
  }

  async summaries(planId: string): Promise<CheckpointSummary[]> {
    return (await this.db.query<{ summary: unknown }>('SELECT summary FROM checkpoints WHERE plan_id = $1 ORDER BY step', [planId])).map(summaryOf);
  }

  async count(planId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM checkpoints WHERE plan_id = $1', [planId]))?.n ?? 0;
  }

  async removeAfter(planId: string, step: number): Promise<void> {
    await this.db.query('DELETE FROM checkpoints WHERE plan_id = $1 AND step > $2', [planId, step]);
  }

  /** One statement, so one snapshot: a checkpoint added meanwhile is either named here or not yet written. */
  async referencedObjects(): Promise<Set<string>> {
    const rows = await this.db.query<{ hash: string }>(
      `SELECT DISTINCT hash FROM (
         SELECT entry.value ->> 'hash' AS hash FROM checkpoints, jsonb_each(checkpoints.delta) AS entry WHERE jsonb_typeof(entry.value) = 'object'
         UNION ALL
         SELECT op ->> 'hash' AS hash FROM rewind_journals, jsonb_array_elements(rewind_journals.data -> 'ops') AS op
       ) AS named WHERE hash IS NOT NULL AND hash <> ''`,
    );
    return new Set(rows.map((row) => row.hash));
  }

  async beginRewind(journal: RewindJournal): Promise<void> {
    await this.db.query('INSERT INTO rewind_journals (plan_id, data) VALUES ($1, $2::jsonb) ON CONFLICT (plan_id) DO UPDATE SET data = excluded.data', [
      journal.planId,
      toJsonParam(journal),
    ]);
  }

  async pendingRewinds(): Promise<RewindJournal[]> {
    return (await this.db.query<{ data: unknown }>('SELECT data FROM rewind_journals ORDER BY plan_id COLLATE "C"')).map((row) => row.data as RewindJournal);
  }

  async endRewind(planId: string): Promise<void> {
    await this.db.query('DELETE FROM rewind_journals WHERE plan_id = $1', [planId]);
  }
}

function summaryOf(row: { summary: unknown }): CheckpointSummary {
  return parseOrThrow(CheckpointSummarySchema, row.summary, 'checkpoints row');
}
