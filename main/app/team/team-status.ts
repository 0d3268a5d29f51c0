import type { TeamStatus } from '../../../shared/team';
import type { App } from '../open-app';
import { consoleOperator } from '../operator';
import type { PgEventFeed } from '../../persistence/postgres';
import type { TeamApp } from './open-team';

/** The team as a console shows it: the queue's depth, the workers and their plans, and who this console answers as. */
export function teamStatusOf(team: TeamApp, operator: () => string): () => Promise<TeamStatus> {
  return async () => {
    const queue = await team.queue();
    const [workers, depth, queuedPlans] = await Promise.all([queue.listWorkers(), queue.depth(), queue.queuedPlans()]);
    return {
      // Counted from the list it goes with, so the two never disagree.
      queued: queuedPlans.length,
      queuedPlans,
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
      host: team.host,
    };
  };
}

export interface ConsoleWiring {
  /** Who the console's answers are recorded as. */
  operator: () => string;
  /** Team mode: other processes' events from the database's feed, and the team's status; absent over the embedded database. */
  team?: { feed: () => Promise<PgEventFeed>; status: () => Promise<TeamStatus> };
}

/** What a console (`agents serve`, the desktop app) takes from the app besides its service. */
export function consoleWiring(app: Pick<App, 'settings' | 'team'>): ConsoleWiring {
  const operator = consoleOperator(app.settings, app.team !== null);
  const team = app.team;
  return { operator, team: team ? { feed: () => team.feed(), status: teamStatusOf(team, operator) } : undefined };
}
