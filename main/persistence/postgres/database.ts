import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { asConnectionError } from './errors';

/** int8 (COUNT, bigint seq and pos) as a number: our counts and positions stay far below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export type Row = Record<string, unknown>;

export interface PgDatabaseOptions {
  /** Connections in the pool (pg's default is 10). */
  max?: number;
  connectionTimeoutMillis?: number;
}

/**
 * A pool of connections to one PostgreSQL database, and the transaction the current async call
 * chain is in: a store's query inside `transaction` or `readTogether` runs on that transaction's
 * connection (AsyncLocalStorage carries it), so stores called inside join it without being told.
 */
export class PgDatabase {
  readonly pool: pg.Pool;
  private readonly current = new AsyncLocalStorage<pg.PoolClient>();

  constructor(
    readonly url: string,
    options: PgDatabaseOptions = {},
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      types,
      application_name: 'agents',
    });
    // An idle connection the server drops (a restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** Runs one statement, in the current transaction if there is one. */
  async query<R extends object = Row>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const client = this.current.getStore();
    try {
      const result = await (client ?? this.pool).query(sql, params as unknown[]);
      return result.rows as R[];
    } catch (error) {
      throw asConnectionError(this.url, error);
    }
  }

  async one<R extends object = Row>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(sql, params))[0];
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /**
   * Runs `fn` as one transaction: COMMIT when it resolves, ROLLBACK when it throws. Inside another
   * it simply joins it (as SQLite's unit transaction does): whatever throws undoes the whole.
   */
  async transaction<T>(fn: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
    if (this.inTransaction) return fn();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asConnectionError(this.url, error);
    }
    let broken = false;
    try {
      await client.query(begin);
      const result = await this.current.run(client, fn);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection itself failed: do not hand it out again
      }
      throw asConnectionError(this.url, error);
    } finally {
      client.release(broken);
    }
  }

  /** Several reads on one snapshot, so another process's commit cannot fall between them. */
  readTogether<T>(read: () => Promise<T>): Promise<T> {
    return this.transaction(read, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** JSON text for a json/jsonb parameter; bigints (tool results are arbitrary) become strings. */
export function toJsonParam(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  }
}

/** PostgreSQL's unique_violation, as the stores tell a duplicate key apart. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
