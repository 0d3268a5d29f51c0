import { join } from 'node:path';
import { resolveDataDir, secureDataDir } from '../persistence/data-dir';
import { type SecretCodec, type SettingsFile, SettingsStore } from './settings';
import { otlpTarget } from './telemetry/otlp';
import { openStores } from '../persistence';
import { recoverInterruptedPlans } from './leases';
import type { PlanService } from './plan-service';
import { maxProjectBytesFrom } from './project-policy';
import { PlanContext, type PlanServiceOptions } from './use-cases/plan-context';
import { RunRegistry } from './use-cases/run-registry';
import { planReading } from './use-cases/reading';
import { planAuthoring } from './use-cases/authoring';
import { acpSettings } from './use-cases/acp-settings';
import { planRunning } from './use-cases/running';
import { planActions } from './use-cases/actions';
import { deferredExecutorFactory, deferredUseCases } from './use-cases/deferred';
import { resolveDatabaseUrl } from '../persistence/postgres/database-url';
import { notifyWebhook } from './notify/wiring';
import type { TeamApp, TeamOptions, TeamRole } from './team/open-team';

export interface App {
  dataDir: string;
  service: PlanService;
  settings: SettingsStore;
  /** Plans found interrupted (owner gone) and marked errored at start-up. */
  recovered: string[];
  /** Team mode: the team's database, queue and feed; null with the embedded SQLite database. */
  team: TeamApp | null;
  close(): Promise<void>;
}

export interface OpenAppOptions extends Partial<Omit<PlanServiceOptions, 'stores' | 'dataDir'>> {
  dataDir?: string;
  secrets?: SecretCodec;
  /** `--database URL`: the team database, over AGENTS_DATABASE_URL and the settings' `database`; false: this machine's, whatever they say. */
  database?: string | false;
  /** In team mode: a client queues runs (default), a worker runs them. */
  role?: TeamRole;
  /** In team mode: migrate the database's schema (workers and `serve`), else refuse one not current. */
  migrate?: boolean;
  /** In team mode: this process's name among the workers. */
  name?: string;
  onTeamError?: (error: Error) => void;
  /** In team mode: the event feed's connection dropped, or was made again. */
  onFeedStatus?: TeamOptions['onFeedStatus'];
  /** Where a warning line goes (a collector that cannot be reached); stderr by default. */
  warn?: (line: string) => void;
}

/**
 * Live traces when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_* or the settings); null when not.
 * A bad setting is said once and export stays off: traces must never stop a plan.
 */
async function startTraces(service: PlanService, settings: SettingsStore, options: OpenAppOptions): Promise<{ close(): Promise<void> } | null> {
  const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
  try {
    let stored: SettingsFile = {};
    try {
      stored = settings.read();
    } catch {
      // Reported where the settings are used.
    }
    const target = otlpTarget(options.env ?? process.env, stored);
    if (!target) return null;
    const { LiveTraces } = await import('./telemetry/plan-traces');
    return await LiveTraces.start(target, service.events, (planId) => service.lifecycle.getPlan(planId), warn);
  } catch (error) {
    warn(`warning: traces are off: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/**
 * The use cases over one context and one registry of runs, side by side as one PlanService. Those
 * a reading command never calls, and the executor's engine, are loaded at their first call.
 */
export function composePlanService(options: PlanServiceOptions): PlanService {
  const runs = new RunRegistry(options.stores.leases);
  const ctx = new PlanContext(options, runs);
  const reading = planReading(ctx);
  const later = deferredUseCases(ctx, runs, reading, () => running);
  const { verifying } = later;
  const running = planRunning(ctx, runs, deferredExecutorFactory(ctx, verifying.checkStep), verifying.verifyPass);
  return {
    stores: ctx.stores,
    lifecycle: ctx.lifecycle,
    events: ctx.events,
    get registry() {
      return ctx.registry;
    },
    ...reading,
    ...planAuthoring(ctx),
    ...acpSettings(ctx),
    ...running,
    ...later.approvals,
    ...later.fixing,
    ...later.applying,
    ...verifying,
    ...later.sandboxFiles,
    ...planActions(ctx, runs),
    ...later.checkpoints,
    // Asked at every start: the checkpoints' module is loaded only where a rewind was left unfinished.
    finishInterruptedRewinds: async (planId?: string) => ((await ctx.stores.checkpoints.pendingRewinds()).some((r) => !planId || r.planId === planId) ? later.checkpoints.finishInterruptedRewinds(planId) : []),
    ...later.forking,
    ...later.reviewing,
  };
}

/** The team database the options, the environment or the settings name; undefined for the embedded one. */
function teamDatabase(options: OpenAppOptions, settings: SettingsStore): string | undefined {
  if (options.database === false) return undefined;
  let stored: string | undefined;
  try {
    stored = settings.read().database;
  } catch {
    // A broken settings file is reported where the settings are used; it must not stop `agents config` fixing it.
  }
  return resolveDatabaseUrl({ flag: options.database, env: options.env ?? process.env, settings: stored });
}

/**
 * The composition root for the CLI and the web host: SQLite stores in the data directory, or, in
 * team mode, PostgreSQL's; one PlanService over them.
 */
export async function openApp(options: OpenAppOptions = {}): Promise<App> {
  const dataDir = options.dataDir ?? resolveDataDir(options.env);
  secureDataDir(dataDir);
  const settings = options.settings ?? new SettingsStore(join(dataDir, 'settings.json'), options.secrets ?? null);
  const url = teamDatabase(options, settings);
  if (url) return openTeamApp(url, dataDir, settings, options);
  const stores = openStores(dataDir);
  const service = composePlanService({ maxProjectBytes: maxProjectBytesFrom(options.env ?? process.env), ...options, settings, stores, dataDir });
  const recovered = await recoverInterruptedPlans(service.lifecycle, stores.leases, stores.errors, stores.approvals);
  // A rewind a process died in is finished before anything reads its sandbox (`plan show` then says so).
  await service.finishInterruptedRewinds();
  const traces = await startTraces(service, settings, options);
  const notifier = notifyWebhook(service, settings, options.env ?? process.env);
  let closed = false;
  // Once: `serve` closes the app at its shutdown, and the CLI closes it again after the command.
  const close = async () => {
    if (closed) return;
    closed = true;
    await traces?.close();
    await notifier.close();
    await stores.close();
  };
  return { dataDir, service, settings, recovered, team: null, close };
}

/**
 * Team mode: the stores in PostgreSQL. Nothing is recovered at start: a run whose worker died is
 * the queue's to hand to another worker, which takes it over from its last committed step.
 */
async function openTeamApp(url: string, dataDir: string, settings: SettingsStore, options: OpenAppOptions): Promise<App> {
  // Loaded only in team mode: the PostgreSQL client and the queue are most of what a start would read.
  const { openTeam } = await import('./team/open-team');
  const team = await openTeam(url, { role: options.role ?? 'client', migrate: options.migrate, name: options.name, onError: options.onTeamError, onFeedStatus: options.onFeedStatus });
  const service = composePlanService({
    maxProjectBytes: maxProjectBytesFrom(options.env ?? process.env),
    ...options,
    settings,
    stores: team.engineStores,
    dataDir,
    dispatch: team.dispatch ?? undefined,
    sharedObjects: team.stores.objects,
    // A sandbox lives on the machine that last ran the plan: a worker remakes it from the database, and a client does not refuse a run for it.
    remakeSandboxes: true,
  });
  const traces = await startTraces(service, settings, options);
  // A worker posts for the runs it commits; a console of the team runs none, so posts nothing twice.
  const notifier = notifyWebhook(service, settings, options.env ?? process.env);
  const close = async () => {
    await traces?.close();
    await notifier.close();
    await team.close();
  };
  return { dataDir, service, settings, recovered: [], team, close };
}
