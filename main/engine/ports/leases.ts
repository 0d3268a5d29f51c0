import { isHolderAlive } from '../process-liveness';

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
  acquire(planId: string, pid: number, hostname: string): Promise<boolean>;
  heartbeat(planId: string, pid: number): Promise<boolean | void>;
  release(planId: string, pid: number): Promise<boolean | void>;
  get(planId: string): Promise<Lease | undefined>;
}

/** Whether the lease's holder still runs (the rule of process-liveness.ts). */
export function isLeaseLive(lease: Lease | undefined, now = Date.now()): boolean {
  return lease !== undefined && isHolderAlive(lease, { now });
}

/**
 * A write the database refused because the writer's take of the plan was overtaken: another
 * process took the plan's lease since (its epoch moved on), so this one must stop, as if it had died.
 */
export class StaleEpochError extends Error {
  override name = 'StaleEpochError';
}

/** Whether `error` (or what it wraps) is a refused stale write. */
export function isStaleEpoch(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof StaleEpochError || /\bstale epoch\b/.test(e.message)) return true;
  }
  return false;
}
