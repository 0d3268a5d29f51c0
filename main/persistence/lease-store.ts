import { hostname as osHostname } from 'node:os';
import { z } from 'zod';
import { parseOrThrow } from '../../shared/errors';
import type { LeaseStore } from '../engine/ports/leases';
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
  /** `epoch`: the plan's epoch this take holds; the writes it makes for the plan are refused once it moves on. */
  | { acquired: true; lease: PlanLease; previous: PlanLease | null; epoch: number }
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
  /** Whether the caller gave the clock (a test); else a store over a shared database may read the database's. */
  protected readonly givenClock: boolean;
  protected readonly isAlive: (pid: number) => boolean;

  constructor(options: LeaseStoreOptions) {
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_LEASE_STALE_MS;
    this.now = options.now ?? (() => new Date());
    this.givenClock = options.now !== undefined;
    this.isAlive = options.isAlive ?? isProcessAlive;
    this.hostname = options.hostname ?? osHostname();
  }

  isStale(lease: PlanLease, now: Date = this.now()): boolean {
    return !isHolderAlive(lease, { now: now.getTime(), staleAfterMs: this.staleAfterMs, hostname: this.hostname, isAlive: this.isAlive });
  }
}

/**
 * The tables whose rows are a plan's, and how a row names its plan: a lease holder's writes to
 * them are fenced by its epoch (here for SQLite; migration 3 of the PostgreSQL schema for it).
 */
export const FENCED_TABLES: readonly { table: string; plan: (row: 'NEW' | 'OLD') => string }[] = [
  ...['decisions', 'changesets', 'tool_invocations', 'error_records', 'events', 'approvals', 'applied_changes', 'sandbox_bases', 'sandbox_files', 'check_results', 'checkpoints', 'rewind_journals'].map(
    (table) => ({ table, plan: (row: 'NEW' | 'OLD') => `${row}.plan_id` }),
  ),
  { table: 'plans', plan: (row) => `${row}.id` },
  { table: 'change_entries', plan: (row) => `(SELECT plan_id FROM main.changesets WHERE id = ${row}.changeset_id)` },
];

/**
 * This connection's fence: a temporary table of the epochs it holds, and temporary triggers that
 * refuse (in the writing transaction, which holds SQLite's write lock) a write to a plan whose
 * epoch has moved past the one held. A connection holding no epoch for a plan is not fenced.
 */
function installFence(db: SqliteDatabase): void {
  const statements = ['CREATE TEMP TABLE IF NOT EXISTS held_epochs (plan_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL)'];
  for (const { table, plan } of FENCED_TABLES) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE'] as const) {
      const key = plan(op === 'DELETE' ? 'OLD' : 'NEW');
      statements.push(
        `CREATE TEMP TRIGGER IF NOT EXISTS fence_${table}_${op.toLowerCase()} BEFORE ${op} ON main.${table}
         WHEN EXISTS (SELECT 1 FROM temp.held_epochs h WHERE h.plan_id = ${key}
                      AND h.epoch IS NOT (SELECT e.epoch FROM main.plan_epochs e WHERE e.plan_id = h.plan_id))
         BEGIN SELECT RAISE(ABORT, 'stale epoch: the plan was taken over by another process'); END`,
      );
    }
  }
  db.exec(statements.join(';\n'));
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
  private readonly selectEpoch: Statement<[string], { epoch: number }>;
  private readonly raiseEpoch: Statement<[string], { epoch: number }>;
  private readonly holdEpoch: Statement<[string, number]>;
  private readonly dropEpoch: Statement<[string]>;

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
    installFence(db);
    this.selectEpoch = prepare(db, 'SELECT epoch FROM plan_epochs WHERE plan_id = ?');
    this.raiseEpoch = prepare(db, 'INSERT INTO plan_epochs (plan_id, epoch) VALUES (?, 1) ON CONFLICT (plan_id) DO UPDATE SET epoch = epoch + 1 RETURNING epoch');
    this.holdEpoch = prepare(db, 'INSERT OR REPLACE INTO temp.held_epochs (plan_id, epoch) VALUES (?, ?)');
    this.dropEpoch = prepare(db, 'DELETE FROM temp.held_epochs WHERE plan_id = ?');

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
      // A take that is not a renewal of our own raises the epoch; this connection's writes carry it.
      const epoch = (mine ? this.selectEpoch.get(planId)?.epoch : undefined) ?? this.raiseEpoch.get(planId)!.epoch;
      this.holdEpoch.run(planId, epoch);
      return { acquired: true, lease, previous: current && !mine ? current : null, epoch };
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

  /**
   * Gives a lease up; false when we did not hold it. The fence stays when the lease was taken from
   * us: whatever this connection still tries to write for the plan is refused.
   */
  release(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    return this.connection.run(() => {
      const released = this.remove.run(planId, pid, hostname).changes === 1;
      if (released) this.dropEpoch.run(planId);
      return released;
    });
  }

  /** The plan's current epoch: how many times its lease was taken; undefined before the first take. */
  epochOf(planId: string): Promise<number | undefined> {
    return this.connection.run(() => this.selectEpoch.get(planId)?.epoch);
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
