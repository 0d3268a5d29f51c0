import { readFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';

/**
 * Whether a process on this host is running. A zombie counts as gone: it has exited and only
 * waits for its parent to reap it, which in a container without an init may never happen.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procState(pid);
  return state !== 'Z' && state !== 'X';
}

/** The state letter of /proc/PID/stat (Linux); null where there is no /proc. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses: the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** Another host's lease counts as gone once its heartbeat is this old. */
export const DEFAULT_LEASE_STALE_MS = 60_000;

export interface LeaseHolder {
  pid: number;
  hostname: string;
  heartbeatAt: string;
}

/**
 * The one rule for whether a plan's lease holder still runs it: on this host, the process table
 * says (a live holder keeps its lease even if a long synchronous step delayed its heartbeat); on
 * another host, which we cannot ask, a heartbeat younger than `staleAfterMs`.
 */
export function isHolderAlive(
  lease: LeaseHolder,
  options: { now?: number; staleAfterMs?: number; hostname?: string; isAlive?: (pid: number) => boolean } = {},
): boolean {
  if (lease.hostname === (options.hostname ?? osHostname())) return (options.isAlive ?? isProcessAlive)(lease.pid);
  const age = (options.now ?? Date.now()) - Date.parse(lease.heartbeatAt);
  return age <= (options.staleAfterMs ?? DEFAULT_LEASE_STALE_MS); // NaN (an unreadable date) counts as gone
}
