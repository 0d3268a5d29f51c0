import { join } from 'node:path';
import { resolveDataDir, secureDataDir } from '../persistence/data-dir';
import { type SecretCodec, SettingsStore } from './settings';
import { openStores } from '../persistence';
import { recoverInterruptedPlans } from './leases';
import { PlanService, type PlanServiceOptions } from './plan-service';
import { maxProjectBytesFrom } from './project-policy';

export interface App {
  dataDir: string;
  service: PlanService;
  settings: SettingsStore;
  /** Plans found interrupted (owner gone) and marked errored at start-up. */
  recovered: string[];
  close(): void;
}

/** The composition root for the CLI and the web host: SQLite stores in the data directory, one PlanService. */
export function openApp(
  options: { dataDir?: string; secrets?: SecretCodec } & Partial<Omit<PlanServiceOptions, 'stores' | 'dataDir'>> = {},
): App {
  const dataDir = options.dataDir ?? resolveDataDir(options.env);
  secureDataDir(dataDir);
  const stores = openStores(dataDir);
  const settings = options.settings ?? new SettingsStore(join(dataDir, 'settings.json'), options.secrets ?? null);
  const service = new PlanService({ maxProjectBytes: maxProjectBytesFrom(options.env ?? process.env), ...options, settings, stores, dataDir });
  const recovered = recoverInterruptedPlans(service.lifecycle, stores.leases, stores.errors, stores.approvals);
  return { dataDir, service, settings, recovered, close: () => stores.close() };
}
