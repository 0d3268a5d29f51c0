import { type CheckpointSummary, CheckpointSummarySchema } from '../../shared/checkpoints';
import { parseOrThrow } from '../../shared/errors';
import type { CheckpointStore, RewindJournal, StoredCheckpoint } from '../engine/checkpoints/checkpoint-store';
import type { SqliteDatabase } from './database';
import { fromJson, prepare, toJson, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

type State = Pick<StoredCheckpoint, 'changesetId' | 'decisions' | 'usage'>;

/** Checkpoints in SQLite: the summary, the delta of the sandbox's files and the plan's state, one row per plan and step. */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly insert: Statement<[string, string, number, string, string, string]>;
  private readonly deleteAfter: Statement<[string, number]>;
  private readonly selectAll: Statement<[string], { summary: string; delta: string; state: string }>;
  private readonly selectSummaries: Statement<[string], { summary: string }>;
  private readonly selectCount: Statement<[string], { n: number }>;
  private readonly putJournal: Statement<[string, string]>;
  private readonly selectJournals: Statement<[], { data: string }>;
  private readonly deleteJournal: Statement<[string]>;
  private readonly selectReferenced: Statement<[], { hash: string }>;
  private readonly addTx: (checkpoint: StoredCheckpoint) => void;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 'INSERT INTO checkpoints (id, plan_id, step, summary, delta, state) VALUES (?, ?, ?, ?, ?, ?)');
    this.deleteAfter = prepare(db, 'DELETE FROM checkpoints WHERE plan_id = ? AND step > ?');
    this.selectAll = prepare(db, 'SELECT summary, delta, state FROM checkpoints WHERE plan_id = ? ORDER BY step');
    this.selectSummaries = prepare(db, 'SELECT summary FROM checkpoints WHERE plan_id = ? ORDER BY step');
    this.selectCount = prepare(db, 'SELECT count(*) AS n FROM checkpoints WHERE plan_id = ?');
    this.putJournal = prepare(db, 'INSERT OR REPLACE INTO rewind_journals (plan_id, data) VALUES (?, ?)');
    this.selectJournals = prepare(db, 'SELECT data FROM rewind_journals ORDER BY plan_id');
    this.deleteJournal = prepare(db, 'DELETE FROM rewind_journals WHERE plan_id = ?');
    // One statement, so one snapshot: a checkpoint added meanwhile is either named here or not yet written.
    this.selectReferenced = prepare(
      db,
      `SELECT DISTINCT hash FROM (
         SELECT json_extract(entry.value, '$.hash') AS hash FROM checkpoints, json_each(checkpoints.delta) AS entry WHERE entry.type = 'object'
         UNION ALL
         SELECT json_extract(op.value, '$.hash') AS hash FROM rewind_journals, json_each(rewind_journals.data, '$.ops') AS op
       ) WHERE hash IS NOT NULL AND hash <> ''`,
    );
    this.addTx = writeTransaction(db, (checkpoint: StoredCheckpoint) => {
      const { delta, changesetId, decisions, usage, ...summary } = checkpoint;
      const valid = parseOrThrow(CheckpointSummarySchema, summary, 'checkpoint');
      this.deleteAfter.run(valid.planId, valid.step - 1);
      this.insert.run(valid.id, valid.planId, valid.step, toJson(valid), toJson(delta), toJson({ changesetId, decisions, usage } satisfies State));
    });
  }

  add(checkpoint: StoredCheckpoint): Promise<void> {
    return this.connection.run(() => {
      this.addTx(checkpoint);
    });
  }

  list(planId: string): Promise<StoredCheckpoint[]> {
    return this.connection.run(() =>
      this.selectAll.all(planId).map((row) => ({
        ...summaryOf(row),
        delta: fromJson(row.delta) as StoredCheckpoint['delta'],
        ...(fromJson(row.state) as State),
      })),
    );
  }

  summaries(planId: string): Promise<CheckpointSummary[]> {
    return this.connection.run(() => this.selectSummaries.all(planId).map(summaryOf));
  }

  count(planId: string): Promise<number> {
    return this.connection.run(() => this.selectCount.get(planId)?.n ?? 0);
  }

  removeAfter(planId: string, step: number): Promise<void> {
    return this.connection.run(() => {
      this.deleteAfter.run(planId, step);
    });
  }

  referencedObjects(): Promise<Set<string>> {
    return this.connection.run(() => new Set(this.selectReferenced.all().map((row) => row.hash)));
  }

  beginRewind(journal: RewindJournal): Promise<void> {
    return this.connection.run(() => {
      this.putJournal.run(journal.planId, toJson(journal));
    });
  }

  pendingRewinds(): Promise<RewindJournal[]> {
    return this.connection.run(() => this.selectJournals.all().map((row) => fromJson(row.data) as RewindJournal));
  }

  endRewind(planId: string): Promise<void> {
    return this.connection.run(() => {
      this.deleteJournal.run(planId);
    });
  }
}

function summaryOf(row: { summary: string }): CheckpointSummary {
  return parseOrThrow(CheckpointSummarySchema, fromJson(row.summary), 'checkpoints row');
}
