import type { LeaseStore } from '../../engine/leases';
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

  /** Reads and writes under a lock on the plan's lease (its row may not exist yet): two processes cannot both take it. */
  tryAcquire(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<LeaseAcquisition> {
    return this.db.transaction(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agents lease ${planId}`]);
      const current = await this.get(planId);
      const now = this.now().toISOString();
      const mine = current?.pid === pid && current.hostname === hostname;
      if (current && !mine && !this.isStale(current)) return { acquired: false, holder: current };
      const lease = parseOrThrow(PlanLeaseSchema, { planId, pid, hostname, heartbeatAt: now, acquiredAt: mine ? current.acquiredAt : now }, 'lease');
      await this.db.query(
        `INSERT INTO plan_leases (plan_id, pid, hostname, heartbeat_at, acquired_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (plan_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname, heartbeat_at = excluded.heartbeat_at, acquired_at = excluded.acquired_at`,
        [lease.planId, lease.pid, lease.hostname, lease.heartbeatAt, lease.acquiredAt],
      );
      return { acquired: true, lease, previous: current && !mine ? current : null };
    });
  }

  /**
   * Takes the plan's lease whoever holds it: for a worker whose queue job holds the plan (the
   * queue let the job go to it because the last holder stopped beating), the job is the lock.
   */
  async seize(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<void> {
    const now = this.now().toISOString();
    await this.db.query(
      `INSERT INTO plan_leases (plan_id, pid, hostname, heartbeat_at, acquired_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (plan_id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname, heartbeat_at = excluded.heartbeat_at, acquired_at = excluded.acquired_at`,
      [planId, pid, hostname, now],
    );
  }

  /** Renews a lease we hold; false when we no longer hold it (it was taken over as stale). */
  async heartbeat(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    const rows = await this.db.query('UPDATE plan_leases SET heartbeat_at = $1 WHERE plan_id = $2 AND pid = $3 AND hostname = $4 RETURNING plan_id', [
      this.now().toISOString(),
      planId,
      pid,
      hostname,
    ]);
    return rows.length === 1;
  }

  /** Gives a lease up; false when we did not hold it. */
  async release(planId: string, pid: number = process.pid, hostname: string = this.hostname): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM plan_leases WHERE plan_id = $1 AND pid = $2 AND hostname = $3 RETURNING plan_id', [planId, pid, hostname]);
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
    return (await this.list()).filter((lease) => this.isStale(lease));
  }
}
