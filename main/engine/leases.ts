import { hostname } from 'node:os';

export interface Lease {
  planId: string;
  pid: number;
  hostname: string;
  heartbeatAt: string;
  acquiredAt: string;
}

/** Which process owns a running plan (a port: main/persistence/lease-store.ts fills it). A plan whose owner is gone was interrupted. */
export interface LeaseStore {
  /** True when the lease was taken (free, or held by a dead owner on this host). */
  acquire(planId: string, pid: number, hostname: string): boolean;
  heartbeat(planId: string, pid: number): void;
  release(planId: string, pid: number): void;
  get(planId: string): Lease | undefined;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Another host's lease counts as gone once its heartbeat is this old. */
const FOREIGN_LEASE_STALE_MS = 60_000;

export function isLeaseLive(lease: Lease | undefined, now = Date.now()): boolean {
  if (!lease) return false;
  if (lease.hostname === hostname()) return isProcessAlive(lease.pid);
  return now - Date.parse(lease.heartbeatAt) < FOREIGN_LEASE_STALE_MS;
}
