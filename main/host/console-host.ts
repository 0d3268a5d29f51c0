// The host both shells serve, built once: the router from contract channel to service call, and the
// event hub. The desktop app binds it to IPC, `agents serve` to WebSockets; each adds its own
// transport, and ends the host through `dispose` after its transport.
import { DisposableStore, type Disposable } from '../../shared/lifecycle';
import type { TeamStatus } from '../../shared/team';
import type { PlanService } from '../app/plan-service';
import { type EventFeed, EventHub } from './event-hub';
import { watchQuestionTimeouts } from '../app/question-timeouts';
import { createRouter, defaultHostLog, type HostLog, type Router, type RouterOptions } from './router';

export interface ConsoleHostOptions extends Pick<RouterOptions, 'projectRoots' | 'planFolders' | 'pickPlanFile' | 'openFolder' | 'operator'> {
  log?: HostLog;
  /** Team mode: other processes' events from the database's feed, and the team's status for `team.status`. */
  team?: { feed: () => Promise<EventFeed>; status: () => Promise<TeamStatus> };
}

export interface ConsoleHost extends Disposable {
  router: Router;
  hub: EventHub;
  /** Ends the hub's subscriptions and feed; the transports bound to it end first, and the app after. */
  dispose(): Promise<void>;
}

export function createConsoleHost(app: { service: PlanService; dataDir?: string }, options: ConsoleHostOptions = {}): ConsoleHost {
  const log = options.log ?? defaultHostLog;
  const lifetime = new DisposableStore();
  const router = createRouter(app.service, {
    dataDir: app.dataDir,
    projectRoots: options.projectRoots,
    planFolders: options.planFolders,
    log,
    operator: options.operator,
    teamStatus: options.team?.status,
    pickPlanFile: options.pickPlanFile,
    openFolder: options.openFolder,
  });
  const hub = lifetime.add(new EventHub(app.service, { onError: (error) => log('event delivery failed', error), feed: options.team?.feed }));
  lifetime.add(watchQuestionTimeouts(app.service, log));
  return { router, hub, dispose: () => lifetime.dispose() };
}
