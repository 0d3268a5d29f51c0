import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type SqliteDatabase = Database.Database;

export const DATABASE_FILE = 'agents.db';
export const BUSY_TIMEOUT_MS = 5000;

/** The schema version the database is at (`PRAGMA user_version`). */
export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
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
  const apply = db.transaction((index: number) => {
    if (schemaVersion(db) !== index) return;
    db.exec(migrations[index]);
    db.pragma(`user_version = ${index + 1}`);
  });
  for (let index = current; index < migrations.length; index += 1) apply.immediate(index);
  return schemaVersion(db);
}

/** Opens (creating if needed) a database file with the pragmas the stores rely on, migrated to the latest schema. */
export function openDatabase(file: string, migrations: readonly string[] = MIGRATIONS): SqliteDatabase {
  const db = new Database(file);
  try {
    // busy_timeout first: switching to WAL needs a lock another process may briefly hold.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    // NORMAL is durable against process crashes in WAL mode; only a power loss can drop the last commits.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
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
