import type { SandboxFileRecord, SandboxFileStore } from '../engine/sandbox/sandbox-files';
import type { SandboxShape } from '../engine/sandbox/shape';
import type { FileSnapshot, TreeSnapshot } from '../engine/sandbox/snapshot';
import type { SqliteDatabase } from './database';
import { prepare, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

/** A sandbox file's row, as both the SQLite and the PostgreSQL store read it. */
export interface FileRow {
  path: string;
  base_hash: string | null;
  seen_hash: string | null;
  size: number | null;
  mtime_ms: number | null;
  ctime_ms: number | null;
  ino: number | null;
  hashed_at_ms: number | null;
  mode: number | null;
}

type SeenColumns = [string | null, number | null, number | null, number | null, number | null, number | null, number | null];

function seenColumns(seen: FileSnapshot | null): SeenColumns {
  return seen ? [seen.hash, seen.size, seen.mtimeMs, seen.ctimeMs, seen.ino, seen.hashedAtMs, seen.mode ?? null] : [null, null, null, null, null, null, null];
}

export function readSeen(row: FileRow): FileSnapshot | null {
  if (row.seen_hash === null) return null;
  const mode = row.mode === null ? {} : { mode: Number(row.mode) };
  return { hash: row.seen_hash, size: row.size ?? 0, mtimeMs: row.mtime_ms ?? 0, ctimeMs: row.ctime_ms ?? 0, ino: row.ino ?? 0, hashedAtMs: row.hashed_at_ms ?? 0, ...mode };
}

/** Each plan's sandbox base and last-seen stats, in SQLite (tables sandbox_bases and sandbox_files). */
export class SqliteSandboxFileStore implements SandboxFileStore {
  private readonly hasBase: Statement<[string], { n: number }>;
  private readonly selectFiles: Statement<[string], FileRow>;
  private readonly recordTx: (planId: string, files: TreeSnapshot) => void;
  private readonly saveTx: (planId: string, seen: ReadonlyMap<string, FileSnapshot | null>) => void;
  private readonly forgetTx: (planId: string) => void;
  private readonly updateShape: Statement<[string, string]>;
  private readonly selectShape: Statement<[string], { shape: string | null }>;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.hasBase = prepare(db, 'SELECT COUNT(*) AS n FROM sandbox_bases WHERE plan_id = ?');
    this.selectFiles = prepare(db, 'SELECT path, base_hash, seen_hash, size, mtime_ms, ctime_ms, ino, hashed_at_ms, mode FROM sandbox_files WHERE plan_id = ?');
    const insertBase = prepare<[string, string]>(db, 'INSERT OR REPLACE INTO sandbox_bases (plan_id, recorded_at) VALUES (?, ?)');
    const upsert = prepare<[string, string, string | null, ...SeenColumns]>(
      db,
      `INSERT INTO sandbox_files (plan_id, path, base_hash, seen_hash, size, mtime_ms, ctime_ms, ino, hashed_at_ms, mode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (plan_id, path) DO UPDATE SET seen_hash = excluded.seen_hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
         ctime_ms = excluded.ctime_ms, ino = excluded.ino, hashed_at_ms = excluded.hashed_at_ms, mode = excluded.mode`,
    );
    // A path neither in the base nor in the sandbox any more needs no row.
    const dropGone = prepare<[string, string]>(db, 'DELETE FROM sandbox_files WHERE plan_id = ? AND path = ? AND base_hash IS NULL AND seen_hash IS NULL');
    const deleteFiles = prepare<[string]>(db, 'DELETE FROM sandbox_files WHERE plan_id = ?');
    const deleteBase = prepare<[string]>(db, 'DELETE FROM sandbox_bases WHERE plan_id = ?');
    this.updateShape = prepare(db, 'UPDATE sandbox_bases SET shape = ? WHERE plan_id = ?');
    this.selectShape = prepare(db, 'SELECT shape FROM sandbox_bases WHERE plan_id = ?');

    this.recordTx = writeTransaction(db, (planId: string, files: TreeSnapshot) => {
      deleteFiles.run(planId);
      insertBase.run(planId, new Date().toISOString());
      for (const [path, file] of files) upsert.run(planId, path, file.hash, ...seenColumns(file));
    });
    this.saveTx = writeTransaction(db, (planId: string, seen: ReadonlyMap<string, FileSnapshot | null>) => {
      for (const [path, file] of seen) {
        upsert.run(planId, path, null, ...seenColumns(file));
        if (file === null) dropGone.run(planId, path);
      }
    });
    this.forgetTx = writeTransaction(db, (planId: string) => {
      deleteFiles.run(planId);
      deleteBase.run(planId);
    });
  }

  load(planId: string): Promise<Map<string, SandboxFileRecord> | null> {
    return this.connection.run(() => {
      if ((this.hasBase.get(planId)?.n ?? 0) === 0) return null;
      return new Map(this.selectFiles.all(planId).map((row) => [row.path, { baseHash: row.base_hash, seen: readSeen(row) }]));
    });
  }

  recordBase(planId: string, files: TreeSnapshot): Promise<void> {
    return this.connection.run(() => this.recordTx(planId, files));
  }

  saveSeen(planId: string, seen: ReadonlyMap<string, FileSnapshot | null>): Promise<void> {
    return this.connection.run(() => {
      if (seen.size > 0) this.saveTx(planId, seen);
    });
  }

  saveShape(planId: string, shape: SandboxShape): Promise<void> {
    return this.connection.run(() => {
      this.updateShape.run(JSON.stringify(shape), planId);
    });
  }

  loadShape(planId: string): Promise<SandboxShape | null> {
    return this.connection.run(() => {
      const shape = this.selectShape.get(planId)?.shape;
      return shape ? (JSON.parse(shape) as SandboxShape) : null;
    });
  }

  forget(planId: string): Promise<void> {
    return this.connection.run(() => this.forgetTx(planId));
  }
}
