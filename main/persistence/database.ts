import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS } from './migrations';
import { transaction } from './sql';

export type SqliteDatabase = DatabaseSync;

export const DATABASE_FILE = 'agents.db';
export const BUSY_TIMEOUT_MS = 5000;

/** Reads one pragma's value (`PRAGMA name`), e.g. `pragma(db, 'journal_mode')` -> 'wal'. */
export function pragma(db: SqliteDatabase, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return row === undefined ? undefined : Object.values(row)[0];
}

/** The schema version the database is at (`PRAGMA user_version`). */
export function schemaVersion(db: SqliteDatabase): number {
  return pragma(db, 'user_version') as number;
}

/**
 * Applies every migration the database has not seen yet, each in its own IMMEDIATE transaction.
 * The version is read again under the write lock, so two processes opening a fresh file at the
 * same moment do not both apply the same migration.
 */
export function runMigrations(db: SqliteDatabase, migrations: readonly string[] = MIGRATIONS): number {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    throw new Error(
      `database schema version ${current} is newer than this build supports (${migrations.length}); update the application`,
    );
  }
  for (let index = current; index < migrations.length; index += 1) {
    transaction(db, 'immediate', () => {
      if (schemaVersion(db) !== index) return;
      db.exec(migrations[index]);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    });
  }
  return schemaVersion(db);
}

/** Opens (creating if needed) a database file with the pragmas the stores rely on, migrated to the latest schema. */
export function openDatabase(file: string, migrations: readonly string[] = MIGRATIONS): SqliteDatabase {
  // The busy timeout is set at open, before anything else: switching to WAL needs a lock another process may briefly hold.
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL is durable against process crashes in WAL mode; only a power loss can drop the last commits.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // A checkpoint runs inside the commit that crosses the threshold, and the event loop waits for
    // it: a quarter of SQLite's default 1000 pages keeps any one commit short (docs/BENCHMARKS.md).
    db.exec('PRAGMA wal_autocheckpoint = 250');
    runMigrations(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Opens `<dataDir>/agents.db`, creating the folder if needed. */
export function openDataDirDatabase(dataDir: string): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  return openDatabase(path.join(dataDir, DATABASE_FILE));
}
