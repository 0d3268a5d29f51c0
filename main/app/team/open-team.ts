import { hostname } from 'node:os';
import { type FeedStatus, openPostgresStores, PgEventFeed, type PostgresStores } from '../../persistence/postgres';
import type { EngineStores } from '../use-cases/plan-context';
import { JobLeases } from './job-leases';
import { RunQueue } from './run-queue';
import { TeamDispatch } from './team-dispatch';

/**
 * What a process is in team mode: a `client` (the CLI, a console) queues runs and follows them;
 * a `worker` takes runs off the queue and runs them here.
 */
export type TeamRole = 'client' | 'worker';

export interface TeamOptions {
  role: TeamRole;
  /** Bring a fresh or older database up to date (workers and `serve` do); else check it is current. */
  migrate?: boolean;
  /** This process's name in `agents workers` (default `agents`). */
  name?: string;
  /** Told of the queue's and the feed's connection errors and warnings, for the host to log. */
  onError?: (error: Error) => void;
  /** Told when the event feed's LISTEN connection drops and when it is made again (a console says so). */
  onFeedStatus?: (status: FeedStatus) => void;
}

/** Team mode's half of an app: its stores in PostgreSQL, the run queue and the event feed (each opened at first use). */
export interface TeamApp {
  url: string;
  role: TeamRole;
  /** The machine, as answers record where they were given. */
  host: string;
  stores: PostgresStores;
  /** What the use cases are given: the PostgreSQL stores, with a worker's job leases. */
  engineStores: EngineStores;
  /** A worker's leases: the plans whose jobs it holds. */
  leases: JobLeases | null;
  /** Where a client sends runs; null in a worker (it runs them). */
  dispatch: TeamDispatch | null;
  queue(): Promise<RunQueue>;
  feed(): Promise<PgEventFeed>;
  close(): Promise<void>;
}

/** Opens the team database at `url`: its schema checked (or migrated), the queue and feed ready to open. */
export async function openTeam(url: string, options: TeamOptions): Promise<TeamApp> {
  const stores = await openPostgresStores(url, { migrate: options.migrate ?? false });
  let queue: Promise<RunQueue> | undefined;
  let feed: Promise<PgEventFeed> | undefined;
  const openQueue = () =>
    (queue ??= RunQueue.open(url, {
      name: options.name,
      // A CLI command only queues and follows; workers and consoles supervise the queue.
      supervise: options.role === 'worker' || options.migrate === true,
      migrate: options.migrate ?? false,
      onError: options.onError,
      onWarning: (warning) => options.onError?.(new Error(warning.message)),
    }));
  const openFeed = () =>
    (feed ??= (async () => {
      const made = new PgEventFeed(url, stores.events, { onError: (error) => options.onError?.(error as Error), onStatus: options.onFeedStatus });
      try {
        await made.start();
      } catch (error) {
        // A first connection that failed is tried again at the next use (a console's next subscriber).
        feed = undefined;
        throw error;
      }
      return made;
    })());
  const leases = options.role === 'worker' ? new JobLeases(stores.leases) : null;
  let closing: Promise<void> | undefined;
  const team: TeamApp = {
    url,
    role: options.role,
    host: hostname(),
    stores,
    engineStores: leases ? { ...stores, leases } : stores,
    leases,
    dispatch: null,
    queue: openQueue,
    feed: openFeed,
    // Once: the CLI closes the app after a command that closed it itself (`serve`).
    close: () =>
      (closing ??= (async () => {
        await Promise.allSettled([queue?.then((q) => q.stop()), feed?.then((f) => f.stop())]);
        await stores.close();
      })()),
  };
  if (options.role === 'client') team.dispatch = new TeamDispatch(openQueue, openFeed, stores);
  return team;
}
