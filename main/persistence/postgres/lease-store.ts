import type { LeaseStore } from '../../engine/ports/leases';
import { parseOrThrow } from '../../../shared/errors';
import { type LeaseAcquisition, LeaseRule, type LeaseRow, type LeaseStoreOptions, type PlanLease, PlanLeaseSchema, readLease } from '../lease-store';
import type { PgDatabase } from './database';

/**
 * Which process runs which plan, in PostgreSQL, by the rule of the SQLite store (../lease-store.ts):
 * a lease is stale when its holder's process is gone (this host) or its heartbeat is older than
 * `staleAfterMs` (another host). Until a queue's job lock takes its place in team mode.
 */
export class PgLeaseStore extends LeaseRule implements LeaseStore {
  constructor(
    readonly db: PgDatabase,
    options: LeaseStoreOptions = {},
  ) {
    super(options);
  }

  async acquire(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    return (await this.tryAcquire(planId, pid, hostname)).acquired;
  }

  /**
   * Reads and writes under a lock on the plan's lease (its row may not exist yet): two processes
   * cannot both take it. A take that is not a renewal of our own raises the plan's epoch, which
   * this process's writes for the plan carry from now on (PgDatabase.holdFence).
   */
  async tryAcquire(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<LeaseAcquisition> {
    const taken = await this.db.transaction(async (): Promise<LeaseAcquisition> => {
      await this.lock(planId);
      const current = await this.get(planId);
      const clock = await this.clock();
      const now = clock.toISOString();
      const mine = current?.pid === pid && current.hostname === hostname;
      if (current && !mine && !this.isStale(current, clock)) return { acquired: false, holder: current };
      const lease = parseOrThrow(PlanLeaseSchema, { planId, pid, hostname, heartbeatAt: now, acquiredAt: mine ? current.acquiredAt : now }, 'lease');
      await this.write(lease);
      const epoch = mine ? ((await this.epochOf(planId)) ?? (await this.raiseEpoch(planId))) : await this.raiseEpoch(planId);
      return { acquired: true, lease, previous: current && !mine ? current : null, epoch };
    });
    if (taken.acquired) this.db.holdFence(planId, taken.epoch);
    return taken;
  }

  /**
   * Takes the plan's lease whoever holds it, raising its epoch: for a worker whose queue job holds
   * the plan (the queue let the job go to it because the last holder stopped beating), the job is
   * the lock. The last holder's writes are refused from this moment. Returns the new epoch.
   */
  async seize(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<number> {
    const epoch = await this.db.transaction(async () => {
      await this.lock(planId);
      const now = (await this.clock()).toISOString();
      await this.write({ planId, pid, hostname, heartbeatAt: now, acquiredAt: now });
      return this.raiseEpoch(planId);
    });
    this.db.holdFence(planId, epoch);
    return epoch;
  }

  /**
   * Takes the lease again for a take that holds `epoch` (a job's run after its retry's first run
   * released it): refused when the plan's epoch has moved on, or another process holds the row.
   */
  async reclaim(planId: string, epoch: number, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    const reclaimed = await this.db.transaction(async () => {
      await this.lock(planId);
      if ((await this.epochOf(planId)) !== epoch) return false;
      const current = await this.get(planId);
      if (current && !(current.pid === pid && current.hostname === hostname)) return false;
      const now = (await this.clock()).toISOString();
      await this.write({ planId, pid, hostname, heartbeatAt: now, acquiredAt: current?.acquiredAt ?? now });
      return true;
    });
    if (reclaimed) this.db.holdFence(planId, epoch);
    return reclaimed;
  }

  /** The plan's current epoch: how many times its lease was taken; undefined before the first take. */
  async epochOf(planId: string): Promise<number | undefined> {
    return (await this.db.one<{ epoch: number }>('SELECT epoch FROM plan_epochs WHERE plan_id = $1', [planId]))?.epoch;
  }

  private async lock(planId: string): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agents lease ${planId}`]);
  }

  private async write(lease: PlanLease): Promise<void> {
    await this.db.query(
      `INSERT INTO plan_leases (plan_id, pid, hostname, heartbeat_at, acquired_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (plan_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname, heartbeat_at = excluded.heartbeat_at, acquired_at = excluded.acquired_at`,
      [lease.planId, lease.pid, lease.hostname, lease.heartbeatAt, lease.acquiredAt],
    );
  }

  /** Waits for the writes that passed the old epoch's fence (they hold its row FOR SHARE) to commit. */
  private async raiseEpoch(planId: string): Promise<number> {
    const row = await this.db.one<{ epoch: number }>(
      'INSERT INTO plan_epochs (plan_id, epoch) VALUES ($1, 1) ON CONFLICT (plan_id) DO UPDATE SET epoch = plan_epochs.epoch + 1 RETURNING epoch',
      [planId],
    );
    return row!.epoch;
  }

  /** Renews a lease we hold; false when we no longer hold it (it was taken over as stale). */
  async heartbeat(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    const rows = await this.db.query('UPDATE plan_leases SET heartbeat_at = $1 WHERE plan_id = $2 AND pid = $3 AND hostname = $4 RETURNING plan_id', [
      (await this.clock()).toISOString(),
      planId,
      pid,
      hostname,
    ]);
    return rows.length === 1;
  }

  /**
   * Gives a lease up; false when we did not hold it. The fence stays when the lease was taken from
   * us: whatever this process still tries to write for the plan is refused.
   */
  async release(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM plan_leases WHERE plan_id = $1 AND pid = $2 AND hostname = $3 RETURNING plan_id', [planId, pid, hostname]);
    if (rows.length === 1) this.db.releaseFence(planId);
    return rows.length === 1;
  }

  async get(planId: string): Promise<PlanLease | undefined> {
    const row = await this.db.one<LeaseRow>('SELECT * FROM plan_leases WHERE plan_id = $1', [planId]);
    return row && readLease(row);
  }

  async list(): Promise<PlanLease[]> {
    return (await this.db.query<LeaseRow>('SELECT * FROM plan_leases ORDER BY acquired_at, plan_id')).map(readLease);
  }

  /** Leases whose holders are gone: the plans a crash left in mid-run. */
  async listStale(): Promise<PlanLease[]> {
    const clock = await this.clock();
    return (await this.list()).filter((lease) => this.isStale(lease, clock));
  }

  /**
   * The time heartbeats are written and judged by: the database's, so machines whose clocks
   * disagree by minutes still agree on whose lease is stale (a test's given clock stands in for it).
   */
  private async clock(): Promise<Date> {
    if (this.givenClock) return this.now();
    const row = await this.db.one<{ now: string }>(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now`);
    return new Date(row!.now);
  }
}
