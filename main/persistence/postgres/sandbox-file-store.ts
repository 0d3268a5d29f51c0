import type { SandboxFileRecord, SandboxFileStore } from '../../engine/sandbox/sandbox-files';
import type { SandboxShape } from '../../engine/sandbox/shape';
import type { FileSnapshot, TreeSnapshot } from '../../engine/sandbox/snapshot';
import { type FileRow, readSeen } from '../sandbox-file-store';
import { type PgDatabase, toJsonParam } from './database';

function fileRow(path: string, baseHash: string | null, seen: FileSnapshot | null) {
  return {
    path,
    base_hash: baseHash,
    seen_hash: seen?.hash ?? null,
    size: seen?.size ?? null,
    mtime_ms: seen?.mtimeMs ?? null,
    ctime_ms: seen?.ctimeMs ?? null,
    ino: seen?.ino ?? null,
    hashed_at_ms: seen?.hashedAtMs ?? null,
    mode: seen?.mode ?? null,
  };
}

/** Rows of sandbox_files from a json array, upserted: a path's base stays, what was last seen is replaced. */
const UPSERT = `INSERT INTO sandbox_files (plan_id, path, base_hash, seen_hash, size, mtime_ms, ctime_ms, ino, hashed_at_ms, mode)
  SELECT $1, r.path, r.base_hash, r.seen_hash, r.size, r.mtime_ms, r.ctime_ms, r.ino, r.hashed_at_ms, r.mode
  FROM json_populate_recordset(NULL::sandbox_files, $2::json) AS r
  ON CONFLICT (plan_id, path) DO UPDATE SET seen_hash = excluded.seen_hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
    ctime_ms = excluded.ctime_ms, ino = excluded.ino, hashed_at_ms = excluded.hashed_at_ms, mode = excluded.mode`;

/** Each plan's sandbox base and last-seen stats, in PostgreSQL (tables sandbox_bases and sandbox_files). */
export class PgSandboxFileStore implements SandboxFileStore {
  constructor(readonly db: PgDatabase) {}

  load(planId: string): Promise<Map<string, SandboxFileRecord> | null> {
    return this.db.readTogether(async () => {
      if (!(await this.db.one('SELECT 1 FROM sandbox_bases WHERE plan_id = $1', [planId]))) return null;
      const rows = await this.db.query<FileRow>(
        'SELECT path, base_hash, seen_hash, size, mtime_ms, ctime_ms, ino, hashed_at_ms, mode FROM sandbox_files WHERE plan_id = $1',
        [planId],
      );
      return new Map(rows.map((row) => [row.path, { baseHash: row.base_hash, seen: readSeen(row) }]));
    });
  }

  recordBase(planId: string, files: TreeSnapshot): Promise<void> {
    return this.db.transaction(async () => {
      await this.db.query('DELETE FROM sandbox_files WHERE plan_id = $1', [planId]);
      await this.db.query(
        `INSERT INTO sandbox_bases (plan_id, recorded_at) VALUES ($1, $2) ON CONFLICT (plan_id) DO UPDATE SET recorded_at = excluded.recorded_at, shape = NULL`,
        [planId, new Date().toISOString()],
      );
      const rows = [...files].map(([path, file]) => fileRow(path, file.hash, file));
      if (rows.length > 0) await this.db.query(UPSERT, [planId, toJsonParam(rows)]);
    });
  }

  async saveSeen(planId: string, seen: ReadonlyMap<string, FileSnapshot | null>): Promise<void> {
    if (seen.size === 0) return;
    await this.db.transaction(async () => {
      await this.db.query(UPSERT, [planId, toJsonParam([...seen].map(([path, file]) => fileRow(path, null, file)))]);
      // A path neither in the base nor in the sandbox any more needs no row.
      const gone = [...seen].filter(([, file]) => file === null).map(([path]) => path);
      if (gone.length > 0) {
        await this.db.query('DELETE FROM sandbox_files WHERE plan_id = $1 AND path = ANY($2::text[]) AND base_hash IS NULL AND seen_hash IS NULL', [planId, gone]);
      }
    });
  }

  async saveShape(planId: string, shape: SandboxShape): Promise<void> {
    await this.db.query('UPDATE sandbox_bases SET shape = $2::jsonb WHERE plan_id = $1', [planId, JSON.stringify(shape)]);
  }

  async loadShape(planId: string): Promise<SandboxShape | null> {
    const row = await this.db.one<{ shape: SandboxShape | null }>('SELECT shape FROM sandbox_bases WHERE plan_id = $1', [planId]);
    return row?.shape ?? null;
  }

  forget(planId: string): Promise<void> {
    return this.db.transaction(async () => {
      await this.db.query('DELETE FROM sandbox_files WHERE plan_id = $1', [planId]);
      await this.db.query('DELETE FROM sandbox_bases WHERE plan_id = $1', [planId]);
    });
  }
}
