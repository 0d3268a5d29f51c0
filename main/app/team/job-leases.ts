import type { LeaseStore } from '../../engine/ports/leases';
import type { PgLeaseStore } from '../../persistence/postgres/lease-store';

/**
 * A worker's leases: the plans whose queue jobs it holds are its own whoever the lease table
 * names (the queue gave it the job because the last holder stopped beating: pg-boss's job lease
 * replaces our own for runs). Each take of a job raises the plan's epoch, which fences every write
 * the worker makes for the plan: the last holder, should it wake, is refused in the database. Every
 * other hold (a verify, an apply, a rewind) takes the table's lease as in a single process, so it
 * still waits for a run on any machine.
 */
export class JobLeases implements LeaseStore {
  /** The plans whose jobs this process holds, with the epoch each take raised the plan to. */
  private readonly jobs = new Map<string, number>();

  constructor(private readonly table: PgLeaseStore) {}

  /** The plan's job is this process's until `releaseJob`: takes its lease whoever holds it; returns the new epoch. */
  async takeJob(planId: string): Promise<number> {
    const epoch = await this.table.seize(planId);
    this.jobs.set(planId, epoch);
    return epoch;
  }

  /** The job ended: its lease is given up (unless it was taken from us: then the fence stays, refusing what this process still writes). */
  async releaseJob(planId: string): Promise<void> {
    this.jobs.delete(planId);
    await this.table.release(planId);
  }

  /** For a plan whose job this process holds: true while its take is still the plan's (its epoch current). */
  async acquire(planId: string, pid: number, hostname: string): Promise<boolean> {
    const epoch = this.jobs.get(planId);
    if (epoch === undefined) return this.table.acquire(planId, pid, hostname);
    return this.table.reclaim(planId, epoch, pid, hostname);
  }

  heartbeat(planId: string, pid: number): Promise<boolean> {
    return this.table.heartbeat(planId, pid);
  }

  /** A hold inside a job (its run, the restore before it) keeps the job's lease and epoch until the job ends. */
  async release(planId: string, pid: number): Promise<boolean> {
    if (this.jobs.has(planId)) return true;
    return this.table.release(planId, pid);
  }

  /**
   * No other holder of a plan whose job is this worker's: the lease its last worker left (live by
   * its heartbeat for a minute on another machine, by its pid on this one) must not refuse the takeover.
   */
  async get(planId: string) {
    return this.jobs.has(planId) ? undefined : this.table.get(planId);
  }
}
