import { CHANGE_OPERATIONS, type ChangeEntry, ChangeEntrySchema, type ChangeSet, type ChangeSetSummary } from '../../shared/changes';
import type { ChangeEntryMeta } from '../../shared/changes';
import { parseOrThrow } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { type ChangeSetStore, entryLineCounts, toEntryMeta } from '../engine/ports/changeset-store';
import { type EntryRow as ChangeEntryRow, type MetaRow as ChangeMetaRow, readEntry, readMeta, readSummary, type RowValues, type SummaryRow, toBlob } from './change-rows';
import type { SqliteDatabase } from './database';
import { fromBit, prepare, toBit, transaction, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

export interface EntryPage {
  offset?: number;
  limit?: number;
}

interface ChangeSetRow {
  id: string;
  plan_id: string;
  created_at: string;
}

// SQLite hands back a boolean as 0/1 and a blob's content as text.
const SQLITE: RowValues<number, string> = { flag: fromBit, text: (content) => content };
type EntryRow = ChangeEntryRow<number, string>;
type MetaRow = ChangeMetaRow<number>;

const OPERATIONS: ReadonlySet<unknown> = new Set(CHANGE_OPERATIONS);
const isStringOrNull = (value: unknown) => value === null || typeof value === 'string';

/**
 * A complete, well-typed ChangeEntry, checked field by field: the common case, at a fraction of a
 * schema parse's cost. Anything else goes through ChangeEntrySchema, which fills defaults and
 * gives the usual validation error.
 */
function isCompleteEntry(value: unknown): value is ChangeEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.id === 'string' && e.id !== '' &&
    typeof e.path === 'string' && e.path !== '' &&
    isStringOrNull(e.oldPath) &&
    OPERATIONS.has(e.operation) &&
    isStringOrNull(e.beforeHash) && isStringOrNull(e.afterHash) &&
    isStringOrNull(e.beforeText) && isStringOrNull(e.afterText) &&
    typeof e.binary === 'boolean' &&
    isStringOrNull(e.decisionId) && isStringOrNull(e.invocationId) &&
    (e.origin === undefined || e.origin === 'tool' || e.origin === 'operator') &&
    typeof e.createdAt === 'string'
  );
}

/** The entry as stored: checked once, whether one is recorded or many. */
function validEntry(input: ChangeEntry): ChangeEntry {
  return isCompleteEntry(input) ? input : parseOrThrow(ChangeEntrySchema, input, 'entry');
}

const ENTRY_COLUMNS = `e.id, e.path, e.old_path, e.operation, e.before_hash, e.after_hash, e.before_blob, e.after_blob,
  e.binary, e.decision_id, e.invocation_id, e.origin, e.rewound_by, e.mode, e.before_mode, e.created_at, b.content AS before_text, a.content AS after_text`;
const ENTRY_JOINS = `LEFT JOIN blobs b ON b.hash = e.before_blob LEFT JOIN blobs a ON a.hash = e.after_blob`;

/**
 * Changesets in SQLite. Entries keep their order through `seq` (1, 2, ... within a changeset), file
 * texts live content-addressed in `blobs`, and each entry's line counts are computed when it is
 * recorded, so summarize() is a single aggregate query.
 */
export class SqliteChangeSetStore implements ChangeSetStore {
  private readonly insertChangeset: Statement<[string, string, string]>;
  private readonly selectChangeset: Statement<[string], ChangeSetRow>;
  private readonly selectChangesetsForPlan: Statement<[string], ChangeSetRow>;
  private readonly insertBlob: Statement<[string, string]>;
  private readonly nextSeq: Statement<[string], { next: number }>;
  private readonly insertEntry: Statement<unknown[]>;
  private readonly selectEntries: Statement<[string], EntryRow>;
  private readonly selectEntryPage: Statement<[string, number, number], EntryRow>;
  private readonly selectEntry: Statement<[string, string], EntryRow>;
  private readonly selectMetaPage: Statement<[string, number, number], MetaRow>;
  private readonly countEntriesStmt: Statement<[string], { n: number }>;
  private readonly summaryStmt: Statement<[string], SummaryRow>;
  /** Inserts entries already checked by validEntry. */
  private readonly recordTx: (changesetId: string, entries: readonly ChangeEntry[]) => { insertions: number; deletions: number } | undefined;
  private readonly selectMeta: Statement<[string, string], MetaRow>;
  private readonly getTx: (changesetId: string) => ChangeSet | undefined;
  private readonly getForPlanTx: (planId: string) => ChangeSet[];
  private readonly markRewoundStmt: Statement<[string, string, string, number]>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insertChangeset = prepare(db, 'INSERT INTO changesets (id, plan_id, created_at) VALUES (?, ?, ?)');
    this.selectChangeset = prepare(db, 'SELECT id, plan_id, created_at FROM changesets WHERE id = ?');
    this.selectChangesetsForPlan = prepare(db, 'SELECT id, plan_id, created_at FROM changesets WHERE plan_id = ? ORDER BY pos');
    this.insertBlob = prepare(db, 'INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)');
    this.nextSeq = prepare(db, 'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM change_entries WHERE changeset_id = ?');
    this.insertEntry = prepare(db, 
      `INSERT INTO change_entries (changeset_id, seq, id, path, old_path, operation, before_hash, after_hash,
         before_blob, after_blob, binary, decision_id, invocation_id, insertions, deletions, created_at, origin, mode, before_mode)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // A changeset as a whole (what review, diff and apply read) leaves out the entries a rewind made history.
    this.selectEntries = prepare(db, `SELECT ${ENTRY_COLUMNS} FROM change_entries e ${ENTRY_JOINS} WHERE e.changeset_id = ? AND e.rewound_by IS NULL ORDER BY e.seq`);
    this.selectEntryPage = prepare(db, 
      `SELECT ${ENTRY_COLUMNS} FROM change_entries e ${ENTRY_JOINS} WHERE e.changeset_id = ? ORDER BY e.seq LIMIT ? OFFSET ?`,
    );
    this.selectEntry = prepare(db, `SELECT ${ENTRY_COLUMNS} FROM change_entries e ${ENTRY_JOINS} WHERE e.changeset_id = ? AND e.id = ?`);
    this.selectMetaPage = prepare(db, 
      `SELECT id, path, old_path, operation, before_hash, after_hash, binary, decision_id, invocation_id, origin, insertions, deletions, rewound_by
       FROM change_entries WHERE changeset_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
    );
    this.selectMeta = prepare(
      db,
      `SELECT id, path, old_path, operation, before_hash, after_hash, binary, decision_id, invocation_id, origin, insertions, deletions, rewound_by
       FROM change_entries WHERE changeset_id = ? AND id = ?`,
    );
    this.countEntriesStmt = prepare(db, 'SELECT COUNT(*) AS n FROM change_entries WHERE changeset_id = ?');
    this.summaryStmt = prepare(db, 
      `SELECT COUNT(*) AS entryCount, COUNT(DISTINCT path) AS files,
         COALESCE(SUM(operation = 'create'), 0) AS creates, COALESCE(SUM(operation = 'modify'), 0) AS modifies,
         COALESCE(SUM(operation = 'delete'), 0) AS deletes, COALESCE(SUM(operation = 'rename'), 0) AS renames,
         COALESCE(SUM(insertions), 0) AS insertions, COALESCE(SUM(deletions), 0) AS deletions
       FROM change_entries WHERE changeset_id = ? AND rewound_by IS NULL`,
    );
    this.markRewoundStmt = prepare(
      db,
      `UPDATE change_entries SET rewound_by = ? WHERE changeset_id = ? AND rewound_by IS NULL
         AND seq IN (SELECT seq FROM change_entries WHERE changeset_id = ? ORDER BY seq LIMIT -1 OFFSET ?)`,
    );

    // A changeset and its entries are read in one snapshot, so another process's commit cannot land between them.
    this.getTx = (changesetId: string) =>
      transaction(db, 'deferred', () => {
        const row = this.selectChangeset.get(changesetId);
        return row && this.readChangeset(row);
      });
    this.getForPlanTx = (planId: string) =>
      transaction(db, 'deferred', () => this.selectChangesetsForPlan.all(planId).map((row) => this.readChangeset(row)));

    this.recordTx = writeTransaction(db, (changesetId: string, entries: readonly ChangeEntry[]) => {
      if (!this.selectChangeset.get(changesetId)) throw new Error(`unknown changeset ${changesetId}`);
      let seq = this.nextSeq.get(changesetId)?.next ?? 1;
      let counts: { insertions: number; deletions: number } | undefined;
      for (const entry of entries) {
        const before = entry.beforeText === null ? null : toBlob(entry.beforeText);
        const after = entry.afterText === null ? null : toBlob(entry.afterText);
        if (before) this.insertBlob.run(before.hash, before.content);
        if (after) this.insertBlob.run(after.hash, after.content);
        // Binary entries get no text diff, exactly as summarizeEntries counts them.
        counts = entryLineCounts(entry);
        // Positional parameters: binding 16 named ones from an object costs more than the insert.
        this.insertEntry.run(
          changesetId, seq, entry.id, entry.path, entry.oldPath, entry.operation, entry.beforeHash, entry.afterHash,
          before?.hash ?? null, after?.hash ?? null, toBit(entry.binary), entry.decisionId, entry.invocationId,
          counts.insertions, counts.deletions, entry.createdAt, entry.origin ?? 'tool', entry.mode ?? null, entry.beforeMode ?? null,
        );
        seq += 1;
      }
      return counts;
    });
  }

  start(planId: string): Promise<string> {
    return this.connection.run(() => {
      const id = newId();
      this.insertChangeset.run(id, planId, new Date().toISOString());
      return id;
    });
  }

  record(changesetId: string, entry: ChangeEntry): Promise<ChangeEntryMeta> {
    return this.connection.run(() => {
      const valid = validEntry(entry);
      const counts = this.recordTx(changesetId, [valid]) ?? { insertions: 0, deletions: 0 };
      return toEntryMeta(valid, counts);
    });
  }

  /** Records several entries in one transaction: all or none. */
  recordMany(changesetId: string, entries: readonly ChangeEntry[]): Promise<void> {
    return this.connection.run(() => {
      this.recordTx(changesetId, entries.map(validEntry));
    });
  }

  /**
   * One IMMEDIATE transaction around `fn`; the other stores' writes inside it (they share this
   * connection) join it, and anything that throws undoes all of it (see SqliteConnection.unit). One
   * commit instead of one per row is what makes a tool call's bookkeeping cheap: a WAL commit
   * writes every page the rows touched.
   */
  atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.connection.unit('immediate', fn);
  }

  get(changesetId: string): Promise<ChangeSet | undefined> {
    return this.connection.run(() => this.getTx(changesetId));
  }

  getForPlan(planId: string): Promise<ChangeSet[]> {
    return this.connection.run(() => this.getForPlanTx(planId));
  }

  /** A page of entries in recording order; an unknown changeset has none. */
  listEntries(changesetId: string, page: EntryPage = {}): Promise<ChangeEntry[]> {
    return this.connection.run(() => {
      const { limit, offset } = pageBounds(page);
      return this.selectEntryPage.all(changesetId, limit, offset).map((row) => readEntry(row, SQLITE));
    });
  }

  countEntries(changesetId: string): Promise<number> {
    return this.connection.run(() => this.countEntriesStmt.get(changesetId)?.n ?? 0);
  }

  getEntry(changesetId: string, entryId: string): Promise<ChangeEntry | undefined> {
    return this.connection.run(() => {
      const row = this.selectEntry.get(changesetId, entryId);
      return row && readEntry(row, SQLITE);
    });
  }

  /**
   * A page of entries without their texts, with the line counts stored at record time: what a
   * list of changes needs, without reading or diffing any file content.
   */
  listEntryMeta(changesetId: string, page: EntryPage = {}): Promise<ChangeEntryMeta[]> {
    return this.connection.run(() => {
      const { limit, offset } = pageBounds(page);
      return this.selectMetaPage.all(changesetId, limit, offset).map((row) => readMeta(row, SQLITE));
    });
  }

  getEntryMeta(changesetId: string, entryId: string): Promise<ChangeEntryMeta | undefined> {
    return this.connection.run(() => {
      const row = this.selectMeta.get(changesetId, entryId);
      return row && readMeta(row, SQLITE);
    });
  }

  markRewound(changesetId: string, from: number, rewindId: string): Promise<number> {
    return this.connection.run(() => Number(this.markRewoundStmt.run(rewindId, changesetId, changesetId, from).changes));
  }

  summarize(changesetId: string): Promise<ChangeSetSummary> {
    return this.connection.run(() => {
      const changeset = this.selectChangeset.get(changesetId);
      if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
      // One aggregate statement: a single snapshot, and no file text is read.
      const s = this.summaryStmt.get(changesetId);
      if (!s) throw new Error(`unknown changeset ${changesetId}`);
      return readSummary(changesetId, changeset.plan_id, s);
    });
  }

  private readChangeset(row: ChangeSetRow): ChangeSet {
    return {
      id: row.id,
      planId: row.plan_id,
      createdAt: row.created_at,
      entries: this.selectEntries.all(row.id).map((row) => readEntry(row, SQLITE)),
    };
  }
}

/** SQLite reads a negative LIMIT as "no limit". */
function pageBounds(page: EntryPage): { limit: number; offset: number } {
  const offset = Math.max(0, Math.trunc(page.offset ?? 0));
  const limit = page.limit === undefined || !Number.isSafeInteger(page.limit) ? -1 : Math.max(0, page.limit);
  return { limit, offset };
}
