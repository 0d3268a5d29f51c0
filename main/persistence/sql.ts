import Database from 'better-sqlite3';
import type { SqliteDatabase } from './database';

/**
 * Wraps `fn` in a BEGIN IMMEDIATE transaction. A deferred transaction that reads and then writes
 * fails with SQLITE_BUSY_SNAPSHOT (which busy_timeout does not retry) when another connection
 * committed in between; taking the write lock up front makes busy_timeout apply.
 */
export function writeTransaction<A extends unknown[], R>(db: SqliteDatabase, fn: (...args: A) => R): (...args: A) => R {
  const transaction = db.transaction(fn);
  return (...args: A) => (inUnit.has(db) ? fn(...args) : transaction.immediate(...args));
}

/** Connections inside a unitTransaction. */
const inUnit = new WeakSet<SqliteDatabase>();

/**
 * One IMMEDIATE transaction around `fn` in which the stores' own write transactions simply join,
 * without a savepoint each: whatever throws undoes the whole unit. A savepoint is not free: the
 * first change to each page after it copies the page to a sub-journal, which for a tool call's
 * bookkeeping doubled the bytes written.
 */
export function unitTransaction(db: SqliteDatabase): <T>(fn: () => T) => T {
  const transaction = writeTransaction(db, (fn: () => unknown) => {
    if (inUnit.has(db)) return fn();
    inUnit.add(db);
    try {
      return fn();
    } finally {
      inUnit.delete(db);
    }
  });
  return <T>(fn: () => T) => transaction(fn) as T;
}

export function isConstraintError(error: unknown, code?: string): boolean {
  if (!(error instanceof Database.SqliteError)) return false;
  return code ? error.code === code : error.code.startsWith('SQLITE_CONSTRAINT');
}

const bigintAsString = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/** JSON that never throws on a bigint (tool results are arbitrary); bigints become strings. */
export function toJson(value: unknown): string {
  // A replacer makes JSON.stringify several times slower, so it is used only for the rare value that needs it.
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, bigintAsString) ?? 'null';
  }
}

export function fromJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

export const toBit = (value: boolean): number => (value ? 1 : 0);
export const fromBit = (value: number): boolean => value !== 0;
