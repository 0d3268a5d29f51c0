import { z } from 'zod';

/** One worker of the team, as the console shows it (`agents workers` prints the same). */
export const TeamWorkerSchema = z.object({
  name: z.string(),
  host: z.string(),
  pid: z.number().int(),
  concurrency: z.number().int().nonnegative(),
  /** The plans whose runs it holds now. */
  plans: z.array(z.string()),
  lastHeartbeat: z.string(),
  /** Beating: its last heartbeat is recent (a silent worker's runs go to another). */
  live: z.boolean(),
});
export type TeamWorker = z.infer<typeof TeamWorkerSchema>;

/** The team seen from a console in team mode: the queue's depth and the workers. */
export const TeamStatusSchema = z.object({
  /** Runs waiting for a worker. */
  queued: z.number().int().nonnegative(),
  /** The plans of those runs, oldest first. */
  queuedPlans: z.array(z.string()),
  /** Runs a worker holds now. */
  running: z.number().int().nonnegative(),
  workers: z.array(TeamWorkerSchema),
  /** Who this console's answers are recorded as, and the machine it serves from. */
  operator: z.string(),
  host: z.string(),
});
export type TeamStatus = z.infer<typeof TeamStatusSchema>;

/** The live worker that runs `planId` now, if any. */
export function workerOf(status: TeamStatus | null, planId: string): TeamWorker | null {
  return status?.workers.find((w) => w.live && w.plans.includes(planId)) ?? status?.workers.find((w) => w.plans.includes(planId)) ?? null;
}

/** Whether the plan's run waits in the queue for a worker. */
export function isQueuedForWorker(status: TeamStatus | null, planId: string): boolean {
  return status?.queuedPlans.includes(planId) ?? false;
}

/** "worker@host" as a worker is named by default; a named worker with its machine. */
export function workerLabel(worker: Pick<TeamWorker, 'name' | 'host'>): string {
  return worker.name.endsWith(`@${worker.host}`) ? worker.name : `${worker.name} on ${worker.host}`;
}

/** The one line the console's header shows: "Team: 2 queued · 1 running · 2 workers". */
export function teamSummary(status: TeamStatus): string {
  const live = status.workers.filter((w) => w.live).length;
  return `Team: ${status.queued} queued · ${status.running} running · ${live} ${live === 1 ? 'worker' : 'workers'}`;
}
