import type { TeamStatus } from '../../../shared/team';
import { answerHost } from '../operator';
import type { TeamApp } from './open-team';

/** The team as a console shows it: the queue's depth, the workers and their plans, and who this console answers as. */
export function teamStatusOf(team: TeamApp, operator: () => string): () => Promise<TeamStatus> {
  return async () => {
    const queue = await team.queue();
    const [workers, depth] = await Promise.all([queue.listWorkers(), queue.depth()]);
    return {
      queued: depth.queued,
      running: depth.active,
      workers: workers.map((w) => ({
        name: w.name,
        host: w.host,
        pid: w.pid,
        concurrency: w.concurrency,
        plans: w.plans,
        lastHeartbeat: w.lastHeartbeat.toISOString(),
        live: w.live,
      })),
      operator: operator(),
      host: answerHost(),
    };
  };
}
