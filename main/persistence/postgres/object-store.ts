import { createHash } from 'node:crypto';
import type { ObjectStore } from '../../engine/checkpoints/object-store';
import type { PgDatabase } from './database';

/**
 * Checkpointed file contents by sha256 in PostgreSQL: what the object-store folder
 * (../../engine/checkpoints/object-store.ts) holds on one machine, reachable from any worker. A
 * restore copies files out of a local folder, so a worker first brings the contents it needs
 * into its own (materialize).
 */
export class PgObjectStore {
  constructor(readonly db: PgDatabase) {}

  async has(hash: string): Promise<boolean> {
    return (await this.db.one('SELECT 1 FROM checkpoint_objects WHERE hash = $1', [hash])) !== undefined;
  }

  /** Stores `content` unless it is there already (then marks it fresh, so a collection running now keeps it); returns its hash. */
  async put(content: Buffer, hash = createHash('sha256').update(content).digest('hex')): Promise<string> {
    await this.db.query('INSERT INTO checkpoint_objects (hash, content, created_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO UPDATE SET created_at = excluded.created_at', [hash, content, new Date().toISOString()]);
    return hash;
  }

  async get(hash: string): Promise<Buffer | undefined> {
    return (await this.db.one<{ content: Buffer }>('SELECT content FROM checkpoint_objects WHERE hash = $1', [hash]))?.content;
  }

  /** Removes every object not in `referenced` stored more than `graceMs` ago (a checkpoint being written may not name it yet). */
  async collect(referenced: ReadonlySet<string>, graceMs: number): Promise<{ removed: number; bytes: number }> {
    const cutoff = new Date(Date.now() - graceMs).toISOString();
    const row = await this.db.one<{ removed: number; bytes: number | null }>(
      `WITH gone AS (DELETE FROM checkpoint_objects WHERE created_at < $1 AND NOT (hash = ANY($2::text[])) RETURNING octet_length(content) AS size)
       SELECT count(*) AS removed, sum(size)::bigint AS bytes FROM gone`,
      [cutoff, [...referenced]],
    );
    return { removed: row?.removed ?? 0, bytes: row?.bytes ?? 0 };
  }

  /**
   * Copies the contents among `hashes` that the local object folder lacks from the database into
   * it, a few hundred per query; returns how many it copied. Throws naming a content the database
   * does not have either.
   */
  async materialize(hashes: Iterable<string>, local: ObjectStore): Promise<number> {
    const missing = [...new Set(hashes)].filter((hash) => !local.has(hash));
    let copied = 0;
    for (let at = 0; at < missing.length; at += 256) {
      const batch = missing.slice(at, at + 256);
      const rows = await this.db.query<{ hash: string; content: Buffer }>('SELECT hash, content FROM checkpoint_objects WHERE hash = ANY($1::text[])', [batch]);
      for (const row of rows) await local.put(row.content, row.hash);
      copied += rows.length;
      if (rows.length < batch.length) {
        const found = new Set(rows.map((row) => row.hash));
        throw new Error(`checkpoint content ${batch.find((hash) => !found.has(hash))} is in neither the database nor ${local.dir}`);
      }
    }
    return copied;
  }
}
