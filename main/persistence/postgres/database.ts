import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { StaleEpochError } from '../../engine/ports/leases';
import { asConnectionError, asLostConnection } from './errors';

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
  /**
   * The server ends a session idle inside a transaction this long (default 30 s): a process
   * stopped (SIGSTOP) mid-transaction must not hold its locks, a plan's takeover among them, for ever.
   */
  idleInTransactionMs?: number;
}

/** The SQLSTATE the fence (migration 3's agents_fence) raises for a holder whose lease was taken since. */
const STALE_EPOCH_STATE = 'AG409';

/**
 * A pool of connections to one PostgreSQL database, and the transaction the current async call
 * chain is in: a store's query inside `transaction` or `readTogether` runs on that transaction's
 * connection (AsyncLocalStorage carries it), so stores called inside join it without being told.
 */
export class PgDatabase {
  readonly pool: pg.Pool;
  private readonly current = new AsyncLocalStorage<pg.PoolClient>();
  /** The epochs this process holds, by plan: what its sessions' `agents.fences` carry. */
  private readonly fences = new Map<string, number>();
  private fenceText = '';
  private fenceVersion = 0;
  private readonly clientFences = new WeakMap<pg.PoolClient, number>();
  /** Once a connection was made, a failure is a connection lost (interrupted work), not a database unreachable. */
  private reached = false;

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
      idle_in_transaction_session_timeout: options.idleInTransactionMs ?? 30_000,
    });
    // An idle connection the server drops (a restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /**
   * From now on every write this process makes for the plan carries `epoch` and is refused by the
   * database (StaleEpochError) once the plan's epoch has moved on: this process's take of the plan
   * was overtaken. Until `releaseFence`.
   */
  holdFence(planId: string, epoch: number): void {
    this.fences.set(planId, epoch);
    this.fencesChanged();
  }

  /** Stops fencing the plan's writes (the lease was given up), unless a later take holds another epoch. */
  releaseFence(planId: string, epoch?: number): void {
    if (epoch !== undefined && this.fences.get(planId) !== epoch) return;
    if (this.fences.delete(planId)) this.fencesChanged();
  }

  /** The epoch this process holds for the plan, if any. */
  fenceOf(planId: string): number | undefined {
    return this.fences.get(planId);
  }

  private fencesChanged(): void {
    this.fenceText = this.fences.size === 0 ? '' : JSON.stringify(Object.fromEntries(this.fences));
    this.fenceVersion += 1;
  }

  /** A pooled connection whose session carries this process's fences (set again only when they changed). */
  private async checkout(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.asDatabaseError(error);
    }
    this.reached = true;
    if (!this.clientFences.has(client)) {
      // A connection the server ends while it is checked out (a restart, pg_terminate_backend) emits
      // 'error' on the client, where the pool no longer listens: unheard, it would end the process.
      // Its query in flight fails as well, and that failure is what the caller handles.
      client.on('error', () => {});
      this.clientFences.set(client, 0);
    }
    const version = this.fenceVersion;
    if ((this.clientFences.get(client) ?? 0) !== version) {
      try {
        await client.query("SELECT set_config('agents.fences', $1, false)", [this.fenceText]);
      } catch (error) {
        client.release(true);
        throw this.asDatabaseError(error);
      }
      this.clientFences.set(client, version);
    }
    return client;
  }

  /** Runs one statement, in the current transaction if there is one. */
  async query<R extends object = Row>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const inside = this.current.getStore();
    try {
      if (inside) return (await inside.query(sql, params as unknown[])).rows as R[];
      // A process that never held a fence has nothing to set on a session: the pool's own query.
      if (this.fenceVersion === 0) {
        const rows = (await this.pool.query(sql, params as unknown[])).rows as R[];
        this.reached = true;
        return rows;
      }
      const client = await this.checkout();
      try {
        const result = await client.query(sql, params as unknown[]);
        client.release();
        return result.rows as R[];
      } catch (error) {
        client.release(!isServerError(error));
        throw error;
      }
    } catch (error) {
      throw this.asDatabaseError(error);
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
    const client = await this.checkout();
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
      throw this.asDatabaseError(error);
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

  /** A refused stale write as StaleEpochError; a connection failure as a DatabaseError before the database was reached, as lost after; anything else unchanged. */
  private asDatabaseError(error: unknown): unknown {
    if (error instanceof StaleEpochError) return error;
    if ((error as { code?: unknown } | null)?.code === STALE_EPOCH_STATE) return new StaleEpochError((error as Error).message);
    return this.reached ? asLostConnection(this.url, error) : asConnectionError(this.url, error);
  }
}

/** An error the server answered with (a SQLSTATE): the connection itself is still good. */
function isServerError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57P');
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
