import type { LeaseStore } from '../../engine/leases';
import type { PgLeaseStore } from '../../persistence/postgres/lease-store';

/**
 * A worker's leases: the plans whose queue jobs it holds are its own whoever the lease table
 * names (the queue gave it the job because the last holder stopped beating: pg-boss's job lease
 * replaces our own for runs); every other hold (a verify, an apply, a rewind) takes the table's
 * lease as in a single process, so it still waits for a run on any machine.
 */
export class JobLeases implements LeaseStore {
  private readonly jobs = new Set<string>();

  constructor(private readonly table: PgLeaseStore) {}

  /** The plan's job is this process's until `release`. */
  holdJob(planId: string): void {
    this.jobs.add(planId);
  }

  releaseJob(planId: string): void {
    this.jobs.delete(planId);
  }

  async acquire(planId: string, pid: number, hostname: string): Promise<boolean> {
    if (!this.jobs.has(planId)) return this.table.acquire(planId, pid, hostname);
    await this.table.seize(planId, pid, hostname);
    return true;
  }

  heartbeat(planId: string, pid: number): Promise<boolean> {
    return this.table.heartbeat(planId, pid);
  }

  release(planId: string, pid: number): Promise<boolean> {
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
