import type { PlanService } from '../app/plan-service';

export interface SettledRuns {
  /** Runs that ended while we waited. */
  finished: string[];
  /** Runs now paused between two decisions: consistent, and recovered as interrupted at the next start. */
  paused: string[];
  /** Runs still inside a tool call when the time ran out. */
  stillRunning: string[];
}

/**
 * Before the process exits: asks every run to pause before its next decision (never inside a tool
 * call), then waits until each has paused or ended, so no plan is left half-written.
 */
export async function settleRuns(
  service: Pick<PlanService, 'list' | 'isRunning' | 'controller'>,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<SettledRuns> {
  const running = (await service.list()).filter((p) => service.isRunning(p.id)).map((p) => p.id);
  for (const id of running) if (service.isRunning(id)) service.controller(id).pause();
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const result: SettledRuns = { finished: [], paused: [], stillRunning: [] };
  let pending = running;
  for (;;) {
    const next: string[] = [];
    for (const id of pending) {
      if (!service.isRunning(id)) result.finished.push(id);
      else if (service.controller(id).isPaused) result.paused.push(id);
      else next.push(id);
    }
    pending = next;
    if (pending.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 25));
  }
  result.stillRunning = pending;
  return result;
}
