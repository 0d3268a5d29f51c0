import type { DatabaseSync } from 'node:sqlite';

export type TransactionMode = 'deferred' | 'immediate';

/**
 * Runs `fn` in a transaction on `db`: COMMIT when it returns, ROLLBACK when it throws. Inside
 * another transaction it runs in a savepoint, so a nested failure undoes only its own part.
 * `fn` must be synchronous: an await would let other work interleave with the open transaction.
 */
export function transaction<T>(db: DatabaseSync, mode: TransactionMode, fn: () => T): T {
  const nested = db.isTransaction;
  db.exec(nested ? 'SAVEPOINT nested' : mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN');
  let result: T;
  try {
    result = fn();
    if (result instanceof Promise) throw new TypeError('a transaction function must not return a promise');
  } catch (error) {
    // What a unit's stores remembered may be part of what is undone.
    unitMemos.get(db)?.clear();
    if (nested) db.exec('ROLLBACK TO nested; RELEASE nested');
    else if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
  db.exec(nested ? 'RELEASE nested' : 'COMMIT');
  return result;
}

/**
 * Wraps `fn` in a BEGIN IMMEDIATE transaction. A deferred transaction that reads and then writes
 * fails with SQLITE_BUSY_SNAPSHOT (which busy_timeout does not retry) when another connection
 * committed in between; taking the write lock up front makes busy_timeout apply.
 */
export function writeTransaction<A extends unknown[], R>(db: DatabaseSync, fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => (inUnit.has(db) ? fn(...args) : transaction(db, 'immediate', () => fn(...args)));
}

/** Connections inside a unitTransaction. */
const inUnit = new WeakSet<DatabaseSync>();

/** Per connection, values the stores may keep while one unit's write lock is held; dropped when it ends. */
const unitMemos = new WeakMap<DatabaseSync, Map<string, unknown>>();

/**
 * A memo that lives as long as the unit transaction `db` is in, or undefined outside one. Inside a
 * unit this connection holds the write lock, so nothing another process does can make it stale.
 */
export function unitMemo(db: DatabaseSync): Map<string, unknown> | undefined {
  return unitMemos.get(db);
}

/**
 * One IMMEDIATE transaction around `fn` in which the stores' own write transactions simply join,
 * without a savepoint each: whatever throws undoes the whole unit. A savepoint is not free: the
 * first change to each page after it copies the page to a sub-journal, which for a tool call's
 * bookkeeping doubled the bytes written.
 */
export function unitTransaction(db: DatabaseSync): <T>(fn: () => T) => T {
  const transaction = writeTransaction(db, (fn: () => unknown) => {
    if (inUnit.has(db)) return fn();
    inUnit.add(db);
    unitMemos.set(db, new Map());
    try {
      return fn();
    } finally {
      inUnit.delete(db);
      unitMemos.delete(db);
    }
  });
  return <T>(fn: () => T) => transaction(fn) as T;
}

/** SQLite's extended result codes for the constraint failures the stores tell apart. */
const CONSTRAINT_CODES = { SQLITE_CONSTRAINT_PRIMARYKEY: 1555, SQLITE_CONSTRAINT_UNIQUE: 2067 } as const;
const SQLITE_CONSTRAINT = 19;

export function isConstraintError(error: unknown, code?: keyof typeof CONSTRAINT_CODES): boolean {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') return false;
  const errcode = (error as { errcode?: unknown }).errcode;
  if (typeof errcode !== 'number') return false;
  return code ? errcode === CONSTRAINT_CODES[code] : (errcode & 0xff) === SQLITE_CONSTRAINT;
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

/** A prepared statement typed by its parameters and its row; node:sqlite's own type knows neither. */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
}

export function prepare<P extends unknown[] = unknown[], R = unknown>(db: DatabaseSync, sql: string): Statement<P, R> {
  const statement = db.prepare(sql);
  // A row object may carry more fields than one statement binds (a plan row feeds insert and update alike).
  statement.setAllowUnknownNamedParameters(true);
  return statement as unknown as Statement<P, R>;
}
