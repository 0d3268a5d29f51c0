import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseSync } from 'node:sqlite';

export type TransactionMode = 'deferred' | 'immediate';

/**
 * Runs `fn` in a transaction on `db`: COMMIT when it returns, ROLLBACK when it throws. Inside
 * another transaction it runs in a savepoint, so a nested failure undoes only its own part.
 * `fn` must be synchronous: an await would let other work interleave with the open transaction
 * (SqliteConnection.unit is the asynchronous kind).
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

/** Connections inside an IMMEDIATE unit (SqliteConnection.unit): the stores' write transactions join it. */
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

/** A unit holding a connection: the async work of one `atomically` or `readTogether`. */
type Holder = { readonly mode: TransactionMode };

/**
 * One connection's asynchronous units. The stores' methods are synchronous inside and return
 * resolved promises; what makes them safe to await is this gate. A unit (`unit`) holds the
 * connection from BEGIN to COMMIT; while it awaits, the calls made inside it (its async context,
 * tracked by an AsyncLocalStorage) go straight to the connection and join its transaction, and
 * every other call and unit waits in FIFO order until it has committed or rolled back. So an
 * await inside a transaction never lets another task's writes (or reads of uncommitted rows) in.
 */
export class SqliteConnection {
  private readonly context = new AsyncLocalStorage<Holder>();
  private holder: Holder | null = null;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly db: DatabaseSync) {}

  /**
   * Runs a synchronous store operation: now when the connection is free or held by the caller's
   * own unit (the hot path: no allocation beyond the promise), else once the holding unit ends.
   */
  run<T>(op: () => T): Promise<T> {
    if (this.holder === null || this.context.getStore() === this.holder) {
      try {
        return Promise.resolve(op());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.queued(op);
  }

  /** Whether the caller runs inside a unit of this connection that holds it now. */
  get inUnit(): boolean {
    return this.holder !== null && this.context.getStore() === this.holder;
  }

  /**
   * Runs `fn` as one transaction that holds the connection until it settles: COMMIT when it
   * resolves, ROLLBACK when it rejects. Called inside a unit it joins it (no savepoint: whatever
   * throws out of the outermost unit undoes all of it). 'immediate' takes the write lock up front
   * and lets the stores' writes join without savepoints; 'deferred' reads on one snapshot.
   *
   * No savepoint per store write: the first change to each page after a savepoint copies the page
   * to a sub-journal, which for a tool call's bookkeeping doubled the bytes written.
   */
  async unit<T>(mode: TransactionMode, fn: () => Promise<T>): Promise<T> {
    if (this.inUnit) return fn();
    const holder: Holder = { mode };
    await this.acquire(holder);
    try {
      return await this.context.run(holder, () => this.transact(mode, fn));
    } finally {
      this.release();
    }
  }

  private async transact<T>(mode: TransactionMode, fn: () => Promise<T>): Promise<T> {
    const db = this.db;
    db.exec(mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    // A deferred (read) unit does not join writes: they keep their savepoints, as before.
    if (mode === 'immediate') {
      inUnit.add(db);
      unitMemos.set(db, new Map());
    }
    try {
      const result = await fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    } finally {
      inUnit.delete(db);
      unitMemos.delete(db);
    }
  }

  private async queued<T>(op: () => T): Promise<T> {
    await this.acquire({ mode: 'deferred' });
    try {
      return op();
    } finally {
      this.release();
    }
  }

  private acquire(holder: Holder): Promise<void> | void {
    if (this.holder === null) {
      this.holder = holder;
      return;
    }
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.holder = holder;
        resolve();
      });
    });
  }

  /** Hands the connection to the next waiter at once, so no call that comes later jumps ahead of it. */
  private release(): void {
    this.holder = null;
    this.waiting.shift()?.();
  }
}

const connections = new WeakMap<DatabaseSync, SqliteConnection>();

/** The one gate of `db`, shared by every store over it. */
export function connectionOf(db: DatabaseSync): SqliteConnection {
  let connection = connections.get(db);
  if (!connection) {
    connection = new SqliteConnection(db);
    connections.set(db, connection);
  }
  return connection;
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

/**
 * Prepared at its first use: a store prepares every statement it has, and a command uses a few
 * (`plan list` used 5 of the ~80 it prepared, a millisecond or two of its start).
 */
export function prepare<P extends unknown[] = unknown[], R = unknown>(db: DatabaseSync, sql: string): Statement<P, R> {
  let prepared: Statement<P, R> | undefined;
  const statement = (): Statement<P, R> => {
    if (prepared) return prepared;
    const made = db.prepare(sql);
    // A row object may carry more fields than one statement binds (a plan row feeds insert and update alike).
    made.setAllowUnknownNamedParameters(true);
    return (prepared = made as unknown as Statement<P, R>);
  };
  return {
    run: (...params) => statement().run(...params),
    get: (...params) => statement().get(...params),
    all: (...params) => statement().all(...params),
    iterate: (...params) => statement().iterate(...params),
  };
}
