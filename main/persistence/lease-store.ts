import { hostname as osHostname } from 'node:os';
import { z } from 'zod';
import { parseOrThrow } from '../../shared/errors';
import type { LeaseStore } from '../engine/leases';
import type { SqliteDatabase } from './database';
import { prepare, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';
import { DEFAULT_LEASE_STALE_MS, isHolderAlive, isProcessAlive } from '../engine/process-liveness';

/** Built at its first parse (z.lazy keeps what it builds): a command that takes no lease builds none of it. */
export const PlanLeaseSchema = z.lazy(() =>
  z.object({
    planId: z.string().min(1),
    pid: z.number().int().positive(),
    hostname: z.string(),
    heartbeatAt: z.string(),
    acquiredAt: z.string(),
  }),
);
export type PlanLease = z.infer<typeof PlanLeaseSchema>;

export type LeaseAcquisition =
  /** `previous` is the stale lease that was taken over, if any: that plan needs crash recovery. */
  | { acquired: true; lease: PlanLease; previous: PlanLease | null }
  | { acquired: false; holder: PlanLease };

export interface LeaseStoreOptions {
  /** Another host's lease is stale once its heartbeat is this old; default 60 s. */
  staleAfterMs?: number;
  now?: () => Date;
  /** Whether a process on this host is alive; default: isProcessAlive (a zombie counts as gone). */
  isAlive?: (pid: number) => boolean;
  /** This machine's name; default os.hostname(). */
  hostname?: string;
}


/** The rule both lease stores judge a lease by, from their options: isHolderAlive's. */
export abstract class LeaseRule {
  readonly staleAfterMs: number;
  readonly hostname: string;
  protected readonly now: () => Date;
  protected readonly isAlive: (pid: number) => boolean;

  constructor(options: LeaseStoreOptions) {
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_LEASE_STALE_MS;
    this.now = options.now ?? (() => new Date());
    this.isAlive = options.isAlive ?? isProcessAlive;
    this.hostname = options.hostname ?? osHostname();
  }

  isStale(lease: PlanLease): boolean {
    return !isHolderAlive(lease, { now: this.now().getTime(), staleAfterMs: this.staleAfterMs, hostname: this.hostname, isAlive: this.isAlive });
  }
}

export interface LeaseRow {
  plan_id: string;
  pid: number;
  hostname: string;
  heartbeat_at: string;
  acquired_at: string;
}

/**
 * Which process runs which plan. A lease is stale when its holder is gone: on this host, when its
 * process no longer exists; on another host (which we cannot ask), when its heartbeat is older
 * than `staleAfterMs`. A stale lease can be taken over, and the plans whose leases are stale are
 * the ones a crash left behind. The rule is isHolderAlive's, the same the app's lease checks use.
 */
export class SqliteLeaseStore extends LeaseRule implements LeaseStore {
  private readonly upsert: Statement<[Record<string, unknown>]>;
  private readonly touch: Statement<[string, string, number, string]>;
  private readonly remove: Statement<[string, number, string]>;
  private readonly selectOne: Statement<[string], LeaseRow>;
  private readonly selectAll: Statement<[], LeaseRow>;
  private readonly acquireTx: (planId: string, pid: number, hostname: string) => LeaseAcquisition;

  private readonly connection: SqliteConnection;

  constructor(
    readonly db: SqliteDatabase,
    options: LeaseStoreOptions = {},
  ) {
    super(options);
    this.connection = connectionOf(db);
    this.upsert = prepare(db, 
      `INSERT INTO plan_leases (plan_id, pid, hostname, heartbeat_at, acquired_at)
       VALUES (@planId, @pid, @hostname, @heartbeatAt, @acquiredAt)
       ON CONFLICT (plan_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
         heartbeat_at = excluded.heartbeat_at, acquired_at = excluded.acquired_at`,
    );
    this.touch = prepare(db, 'UPDATE plan_leases SET heartbeat_at = ? WHERE plan_id = ? AND pid = ? AND hostname = ?');
    this.remove = prepare(db, 'DELETE FROM plan_leases WHERE plan_id = ? AND pid = ? AND hostname = ?');
    this.selectOne = prepare(db, 'SELECT * FROM plan_leases WHERE plan_id = ?');
    this.selectAll = prepare(db, 'SELECT * FROM plan_leases ORDER BY acquired_at, plan_id');

    // Read and write under one write lock: two processes cannot both take the same plan.
    this.acquireTx = writeTransaction(db, (planId: string, pid: number, hostname: string): LeaseAcquisition => {
      const row = this.selectOne.get(planId);
      const current = row && readLease(row);
      const now = this.now().toISOString();
      const mine = current?.pid === pid && current.hostname === hostname;
      if (current && !mine && !this.isStale(current)) return { acquired: false, holder: current };
      const lease = parseOrThrow(
        PlanLeaseSchema,
        { planId, pid, hostname, heartbeatAt: now, acquiredAt: mine ? current.acquiredAt : now },
        'lease',
      );
      this.upsert.run(lease);
      return { acquired: true, lease, previous: current && !mine ? current : null };
    });
  }

  /** Takes the plan's lease if it is free, already ours, or stale; true when we now hold it. */
  acquire(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    return this.connection.run(() => this.acquireTx(planId, pid, hostname).acquired);
  }

  /** acquire(), telling who holds the lease when it is refused and whose stale lease was taken over. */
  tryAcquire(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<LeaseAcquisition> {
    return this.connection.run(() => this.acquireTx(planId, pid, hostname));
  }

  /** Renews a lease we hold; false when we no longer hold it (it was taken over as stale). */
  heartbeat(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    return this.connection.run(() => this.touch.run(this.now().toISOString(), planId, pid, hostname).changes === 1);
  }

  /** Gives a lease up; false when we did not hold it. */
  release(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    return this.connection.run(() => this.remove.run(planId, pid, hostname).changes === 1);
  }

  get(planId: string): Promise<PlanLease | undefined> {
    return this.connection.run(() => {
      const row = this.selectOne.get(planId);
      return row && readLease(row);
    });
  }

  list(): Promise<PlanLease[]> {
    return this.connection.run(() => this.selectAll.all().map(readLease));
  }

  /** Leases whose holders are gone: the plans a crash left in mid-run. */
  listStale(): Promise<PlanLease[]> {
    return this.connection.run(() => this.selectAll.all().map(readLease).filter((lease) => this.isStale(lease)));
  }
}

export function readLease(row: LeaseRow): PlanLease {
  return parseOrThrow(
    PlanLeaseSchema,
    { planId: row.plan_id, pid: row.pid, hostname: row.hostname, heartbeatAt: row.heartbeat_at, acquiredAt: row.acquired_at },
    `plan_leases[${row.plan_id}]`,
  );
}
