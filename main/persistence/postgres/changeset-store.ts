import { type ChangeEntry, type ChangeEntryMeta, ChangeEntrySchema, type ChangeSet, type ChangeSetSummary } from '../../../shared/changes';
import { parseOrThrow } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { entryLineCounts, toEntryMeta, type ChangeSetStore } from '../../engine/ports/changeset-store';
import type { EntryPage } from '../changeset-store';
import { type EntryRow as ChangeEntryRow, type MetaRow as ChangeMetaRow, readEntry, readMeta, readSummary, type RowValues, type SummaryRow, toBlob } from '../change-rows';
import { type PgDatabase, toJsonParam } from './database';

interface ChangeSetRow {
  id: string;
  plan_id: string;
  created_at: string;
}

// PostgreSQL hands back a boolean as one, and a blob's content as UTF-8 bytes.
const PG: RowValues<boolean, Buffer> = { flag: (value) => value, text: (content) => content.toString('utf8') };
type EntryRow = ChangeEntryRow<boolean, Buffer>;
type MetaRow = ChangeMetaRow<boolean>;

/** A file text as stored: the key both stores give it, and its UTF-8 bytes. */
function utf8Blob(text: string): { hash: string; content: Buffer } {
  const blob = toBlob(text);
  return { hash: blob.hash, content: Buffer.from(blob.content, 'utf8') };
}

const META_COLUMNS = 'e.id, e.path, e.old_path, e.operation, e.before_hash, e.after_hash, e."binary", e.decision_id, e.invocation_id, e.origin, e.insertions, e.deletions, e.rewound_by';
const ENTRY_SELECT = `SELECT ${META_COLUMNS}, e.before_blob, e.after_blob, e.mode, e.before_mode, e.created_at, b.content AS before_text, a.content AS after_text
  FROM change_entries e LEFT JOIN blobs b ON b.hash = e.before_blob LEFT JOIN blobs a ON a.hash = e.after_blob`;

/**
 * Changesets in PostgreSQL, file texts included (content-addressed in `blobs`), so a plan's changes
 * do not live on one machine's disk. Entries keep their order through `seq` within a changeset;
 * recording locks the changeset's row, so two processes recording into one changeset take turns.
 */
export class PgChangeSetStore implements ChangeSetStore {
  constructor(readonly db: PgDatabase) {}

  async start(planId: string): Promise<string> {
    const id = newId();
    await this.db.query('INSERT INTO changesets (id, plan_id, created_at) VALUES ($1, $2, $3)', [id, planId, new Date().toISOString()]);
    return id;
  }

  async record(changesetId: string, entry: ChangeEntry): Promise<ChangeEntryMeta> {
    const valid = parseOrThrow(ChangeEntrySchema, entry, 'entry');
    const counts = (await this.recordEntries(changesetId, [valid])) ?? { insertions: 0, deletions: 0 };
    return toEntryMeta(valid, counts);
  }

  /** Records several entries in one transaction: all or none. */
  async recordMany(changesetId: string, entries: readonly ChangeEntry[]): Promise<void> {
    await this.recordEntries(changesetId, entries.map((entry) => parseOrThrow(ChangeEntrySchema, entry, 'entry')));
  }

  /** Runs `fn` as one transaction that the other stores' writes inside it join (see PgDatabase.transaction). */
  atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  get(changesetId: string): Promise<ChangeSet | undefined> {
    return this.db.readTogether(async () => {
      const row = await this.db.one<ChangeSetRow>('SELECT id, plan_id, created_at FROM changesets WHERE id = $1', [changesetId]);
      return row && this.readChangeset(row);
    });
  }

  getForPlan(planId: string): Promise<ChangeSet[]> {
    return this.db.readTogether(async () => {
      const rows = await this.db.query<ChangeSetRow>('SELECT id, plan_id, created_at FROM changesets WHERE plan_id = $1 ORDER BY pos', [planId]);
      const changesets: ChangeSet[] = [];
      for (const row of rows) changesets.push(await this.readChangeset(row));
      return changesets;
    });
  }

  /** A page of entries in recording order; an unknown changeset has none. */
  async listEntries(changesetId: string, page: EntryPage = {}): Promise<ChangeEntry[]> {
    const { limit, offset } = pageBounds(page);
    return (await this.db.query<EntryRow>(`${ENTRY_SELECT} WHERE e.changeset_id = $1 ORDER BY e.seq LIMIT $2 OFFSET $3`, [changesetId, limit, offset])).map((row) => readEntry(row, PG));
  }

  async countEntries(changesetId: string): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM change_entries WHERE changeset_id = $1', [changesetId]))?.n ?? 0;
  }

  async getEntry(changesetId: string, entryId: string): Promise<ChangeEntry | undefined> {
    const row = await this.db.one<EntryRow>(`${ENTRY_SELECT} WHERE e.changeset_id = $1 AND e.id = $2`, [changesetId, entryId]);
    return row && readEntry(row, PG);
  }

  /** A page of entries without their texts, with the line counts stored at record time. */
  async listEntryMeta(changesetId: string, page: EntryPage = {}): Promise<ChangeEntryMeta[]> {
    const { limit, offset } = pageBounds(page);
    const rows = await this.db.query<MetaRow>(`SELECT ${META_COLUMNS} FROM change_entries e WHERE e.changeset_id = $1 ORDER BY e.seq LIMIT $2 OFFSET $3`, [
      changesetId,
      limit,
      offset,
    ]);
    return rows.map((row) => readMeta(row, PG));
  }

  async getEntryMeta(changesetId: string, entryId: string): Promise<ChangeEntryMeta | undefined> {
    const row = await this.db.one<MetaRow>(`SELECT ${META_COLUMNS} FROM change_entries e WHERE e.changeset_id = $1 AND e.id = $2`, [changesetId, entryId]);
    return row && readMeta(row, PG);
  }

  /** Marks the entries from position `from` (0-based, recorded order) on as history of the rewind `rewindId`. */
  async markRewound(changesetId: string, from: number, rewindId: string): Promise<number> {
    const rows = await this.db.query(
      `UPDATE change_entries SET rewound_by = $1 WHERE changeset_id = $2 AND rewound_by IS NULL
         AND seq IN (SELECT seq FROM change_entries WHERE changeset_id = $2 ORDER BY seq OFFSET $3) RETURNING seq`,
      [rewindId, changesetId, Math.max(0, Math.trunc(from))],
    );
    return rows.length;
  }

  /** One aggregate statement: a single snapshot, and no file text is read. */
  async summarize(changesetId: string): Promise<ChangeSetSummary> {
    const s = await this.db.one<SummaryRow & { planId: string }>(
      `SELECT c.plan_id AS "planId", count(e.seq) AS "entryCount", count(DISTINCT e.path) AS files,
         count(*) FILTER (WHERE e.operation = 'create') AS creates, count(*) FILTER (WHERE e.operation = 'modify') AS modifies,
         count(*) FILTER (WHERE e.operation = 'delete') AS deletes, count(*) FILTER (WHERE e.operation = 'rename') AS renames,
         COALESCE(sum(e.insertions), 0)::int AS insertions, COALESCE(sum(e.deletions), 0)::int AS deletions
       FROM changesets c LEFT JOIN change_entries e ON e.changeset_id = c.id AND e.rewound_by IS NULL
       WHERE c.id = $1 GROUP BY c.plan_id`,
      [changesetId],
    );
    if (!s) throw new Error(`unknown changeset ${changesetId}`);
    return readSummary(changesetId, s.planId, s);
  }

  /** Inserts entries already validated, after the changeset's current last; returns the last one's line counts. */
  private recordEntries(changesetId: string, entries: readonly ChangeEntry[]): Promise<{ insertions: number; deletions: number } | undefined> {
    return this.db.transaction(async () => {
      const changeset = await this.db.one('SELECT id FROM changesets WHERE id = $1 FOR UPDATE', [changesetId]);
      if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
      if (entries.length === 0) return undefined;
      const first = (await this.db.one<{ next: number }>('SELECT COALESCE(max(seq), 0) + 1 AS next FROM change_entries WHERE changeset_id = $1', [changesetId]))!.next;
      const blobs = new Map<string, Buffer>();
      let counts: { insertions: number; deletions: number } | undefined;
      const rows = entries.map((entry, i) => {
        const before = entry.beforeText === null ? null : utf8Blob(entry.beforeText);
        const after = entry.afterText === null ? null : utf8Blob(entry.afterText);
        if (before) blobs.set(before.hash, before.content);
        if (after) blobs.set(after.hash, after.content);
        // Binary entries get no text diff, exactly as summarizeEntries counts them.
        counts = entryLineCounts(entry);
        return {
          changeset_id: changesetId,
          seq: first + i,
          id: entry.id,
          path: entry.path,
          old_path: entry.oldPath,
          operation: entry.operation,
          before_hash: entry.beforeHash,
          after_hash: entry.afterHash,
          before_blob: before?.hash ?? null,
          after_blob: after?.hash ?? null,
          binary: entry.binary,
          decision_id: entry.decisionId,
          invocation_id: entry.invocationId,
          insertions: counts.insertions,
          deletions: counts.deletions,
          created_at: entry.createdAt,
          origin: entry.origin ?? 'tool',
          mode: entry.mode ?? null,
          before_mode: entry.beforeMode ?? null,
        };
      });
      if (blobs.size > 0) {
        await this.db.query('INSERT INTO blobs (hash, content) SELECT * FROM unnest($1::text[], $2::bytea[]) ON CONFLICT (hash) DO NOTHING', [
          [...blobs.keys()],
          [...blobs.values()],
        ]);
      }
      await this.db.query(
        `INSERT INTO change_entries (changeset_id, seq, id, path, old_path, operation, before_hash, after_hash, before_blob, after_blob,
           "binary", decision_id, invocation_id, insertions, deletions, created_at, origin, mode, before_mode)
         SELECT changeset_id, seq, id, path, old_path, operation, before_hash, after_hash, before_blob, after_blob,
           "binary", decision_id, invocation_id, insertions, deletions, created_at, origin, mode, before_mode
         FROM json_populate_recordset(NULL::change_entries, $1::json)`,
        [toJsonParam(rows)],
      );
      return counts;
    });
  }

  private async readChangeset(row: ChangeSetRow): Promise<ChangeSet> {
    // A changeset as a whole (what review, diff and apply read) leaves out the entries a rewind made history.
    const entries = await this.db.query<EntryRow>(`${ENTRY_SELECT} WHERE e.changeset_id = $1 AND e.rewound_by IS NULL ORDER BY e.seq`, [row.id]);
    return { id: row.id, planId: row.plan_id, createdAt: row.created_at, entries: entries.map((row) => readEntry(row, PG)) };
  }
}

/** PostgreSQL reads LIMIT NULL as "no limit". */
function pageBounds(page: EntryPage): { limit: number | null; offset: number } {
  const offset = Math.max(0, Math.trunc(page.offset ?? 0));
  const limit = page.limit === undefined || !Number.isSafeInteger(page.limit) ? null : Math.max(0, page.limit);
  return { limit, offset };
}
