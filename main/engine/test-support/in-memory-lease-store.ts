import { isLeaseLive, type Lease, type LeaseStore } from '../leases';

/** A LeaseStore for tests: one process's memory. */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, Lease>();
  acquire(planId: string, pid: number, host: string): boolean {
    const current = this.leases.get(planId);
    if (current && current.pid !== pid && isLeaseLive(current)) return false;
    const now = new Date().toISOString();
    this.leases.set(planId, { planId, pid, hostname: host, heartbeatAt: now, acquiredAt: now });
    return true;
  }
  heartbeat(planId: string, pid: number): void {
    const lease = this.leases.get(planId);
    if (lease?.pid === pid) lease.heartbeatAt = new Date().toISOString();
  }
  release(planId: string, pid: number): void {
    if (this.leases.get(planId)?.pid === pid) this.leases.delete(planId);
  }
  get(planId: string): Lease | undefined {
    return this.leases.get(planId);
  }
}

