import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStores } from '../../persistence';
import { SettingsStore } from '../settings';
import { planYaml } from '../test-support';
import { planAuthoring } from './authoring';
import { PlanContext } from './plan-context';
import { RunRegistry } from './run-registry';
import { planVerifying } from './verifying';

/** One use case's world: a context and a run registry over real SQLite stores in a temporary folder. */
export function useCaseHarness() {
  const root = mkdtempSync(path.join(tmpdir(), 'agents-use-case-'));
  const project = path.join(root, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'README.md'), '# Demo\n');
  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir);
  const stores = openStores(dataDir);
  const runs = new RunRegistry(stores.leases);
  const ctx = new PlanContext({ stores, dataDir, settings: new SettingsStore(path.join(dataDir, 'settings.json')), env: {}, sleep: () => Promise.resolve() }, runs);
  const authoring = planAuthoring(ctx);
  return {
    root,
    project,
    ctx,
    runs,
    verifying: planVerifying(ctx, runs),
    /** A scripted plan of `steps` steps writing out/N.txt (failing at `failAt`). */
    createPlan: (options: { steps?: number; failAt?: number } = {}) => authoring.createFromContent({ content: planYaml(project, options) }, root),
    async dispose() {
      await runs.idle();
      stores.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
