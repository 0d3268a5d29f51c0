import { join } from 'node:path';
import { resolveDataDir, secureDataDir } from '../persistence/data-dir';
import { type SecretCodec, SettingsStore } from './settings';
import { openStores } from '../persistence';
import { recoverInterruptedPlans } from './leases';
import type { PlanService } from './plan-service';
import { maxProjectBytesFrom } from './project-policy';
import { sandboxExecutorFactory } from './executor-factory';
import { PlanContext, type PlanServiceOptions } from './use-cases/plan-context';
import { RunRegistry } from './use-cases/run-registry';
import { planReading } from './use-cases/reading';
import { planAuthoring } from './use-cases/authoring';
import { planRunning } from './use-cases/running';
import { planApprovals } from './use-cases/approvals';
import { planFixing } from './use-cases/fixing';
import { planApplying } from './use-cases/applying';
import { planSandboxFiles } from './use-cases/sandbox-files';
import { planActions } from './use-cases/actions';
import { planVerifying } from './use-cases/verifying';
import { planCheckpoints } from './use-cases/checkpoints';
import { planReviewing } from './use-cases/reviewing';
import { planForking } from './use-cases/forking';

export interface App {
  dataDir: string;
  service: PlanService;
  settings: SettingsStore;
  /** Plans found interrupted (owner gone) and marked errored at start-up. */
  recovered: string[];
  close(): void;
}

/** The use cases over one context and one registry of runs, side by side as one PlanService. */
export function composePlanService(options: PlanServiceOptions): PlanService {
  const runs = new RunRegistry(options.stores.leases);
  const ctx = new PlanContext(options, runs);
  const reading = planReading(ctx);
  const verifying = planVerifying(ctx, runs);
  const running = planRunning(ctx, runs, sandboxExecutorFactory(ctx, verifying.checkStep), verifying.verifyPass);
  return {
    stores: ctx.stores,
    lifecycle: ctx.lifecycle,
    events: ctx.events,
    registry: ctx.registry,
    ...reading,
    ...planAuthoring(ctx),
    ...running,
    ...planApprovals(ctx, runs, running.runFrom),
    ...planFixing(ctx, runs, running.run, verifying),
    ...planApplying(ctx, runs, reading, verifying),
    ...verifying,
    ...planSandboxFiles(ctx, runs),
    ...planActions(ctx, runs),
    ...planCheckpoints(ctx, runs),
    ...planForking(ctx, runs),
    ...planReviewing(ctx, reading),
  };
}

/** The composition root for the CLI and the web host: SQLite stores in the data directory, one PlanService. */
export async function openApp(
  options: { dataDir?: string; secrets?: SecretCodec } & Partial<Omit<PlanServiceOptions, 'stores' | 'dataDir'>> = {},
): Promise<App> {
  const dataDir = options.dataDir ?? resolveDataDir(options.env);
  secureDataDir(dataDir);
  const stores = openStores(dataDir);
  const settings = options.settings ?? new SettingsStore(join(dataDir, 'settings.json'), options.secrets ?? null);
  const service = composePlanService({ maxProjectBytes: maxProjectBytesFrom(options.env ?? process.env), ...options, settings, stores, dataDir });
  const recovered = await recoverInterruptedPlans(service.lifecycle, stores.leases, stores.errors, stores.approvals);
  // A rewind a process died in is finished before anything reads its sandbox (`plan show` then says so).
  await service.finishInterruptedRewinds();
  return { dataDir, service, settings, recovered, close: () => stores.close() };
}
