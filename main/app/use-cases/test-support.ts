import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { stepsInOrder } from '../../../shared/decision-tree';
import { gitIn } from '../../engine/test-support/git-repos';
import type { SharedObjects } from '../../engine/checkpoints/shared-objects';
import { treeState } from '../../engine/tools/test-support';
import { openStores } from '../../persistence';
import { SettingsStore } from '../settings';
import { planYaml } from '../test-support';
import { sandboxExecutorFactory } from '../executor-factory';
import { planApprovals } from './approvals';
import { planAuthoring } from './authoring';
import { planCheckpoints } from './checkpoints';
import { planFixing } from './fixing';
import { planRunning } from './running';
import { type EngineStores, PlanContext } from './plan-context';
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

// ---- two processes over shared stores, each with its data directory (sandbox remakes) ----

export const STEP_THREE = ['    tools:', '      - tool: file.write', '        args: { path: partial.txt, content: "written by step 3" }'];

/**
 * Four steps making every kind of change (text and binary, create, modify, delete, rename). With
 * `failing`, the third writes a file and then fails (an edit of a heading that is not there), as a
 * worker that died there would leave it; an edit of the step (STEP_THREE) fixes it. With `git`, the
 * project is that repository's main branch instead of the folder.
 */
export function remakePlanText(project: string, options: { profile?: string; failing?: boolean; git?: string } = {}): string {
  return [
    'name: remade',
    options.git ? `project: { git: ${JSON.stringify(options.git)}, ref: main }` : `project: ${JSON.stringify(project)}`,
    `automationProfile: ${options.profile ?? 'trusted'}`,
    'definitionOfDone:',
    '  - step: Write the guide and retitle the README',
    '    tools:',
    '      - tool: file.write',
    '        args: { path: docs/guide.md, content: "# Guide" }',
    '      - tool: file.edit',
    '        args: { path: README.md, find: "# Demo", replace: "# Demo, remade" }',
    '  - step: Remove, rename and write binary',
    '    tools:',
    '      - tool: file.delete',
    '        args: { path: obsolete.txt }',
    '      - tool: file.rename',
    '        args: { from: src/old.ts, to: src/new.ts }',
    '      - tool: shell.run',
    `        args: { command: "printf '\\\\000\\\\001\\\\377' > data.bin && printf '\\\\211PNG\\\\000\\\\002' > logo.png" }`,
    '  - step: Write a part',
    ...STEP_THREE,
    ...(options.failing ? ['      - tool: file.edit', '        args: { path: README.md, find: "## Missing", replace: "x" }'] : []),
    '  - step: Finish',
    '    tools:',
    '      - tool: file.write',
    '        args: { path: out/after.txt, content: "after" }',
    '',
  ].join('\n');
}

/** One process's use cases over `stores`, with its own data directory: a worker, or the console that started the plan. */
export function remakeService(stores: EngineStores, dataDir: string, remakeSandboxes: boolean, sharedObjects?: SharedObjects) {
  mkdirSync(dataDir, { recursive: true });
  const runs = new RunRegistry(stores.leases);
  const settings = new SettingsStore(path.join(dataDir, 'settings.json'));
  const ctx = new PlanContext({ stores, dataDir, settings, env: {}, sleep: () => Promise.resolve(), remakeSandboxes, sharedObjects }, runs);
  const verifying = planVerifying(ctx, runs);
  const running = planRunning(ctx, runs, sandboxExecutorFactory(ctx, verifying.checkStep), verifying.verifyPass);
  const checkpoints = planCheckpoints(ctx, runs);
  return { ctx, runs, running, fixing: planFixing(ctx, runs, running.run, verifying, checkpoints), approvals: planApprovals(ctx, runs, running.runFrom), checkpoints, authoring: planAuthoring(ctx) };
}

export type RemakeService = ReturnType<typeof remakeService>;

/**
 * A project every remake test plan works on (text and binary files, one to delete, one to rename),
 * and the step file that fixes the failing third step. `stores` (and `sharedObjects`, the team's
 * checkpoint contents) are shared by every service `make`s.
 */
export function remakeWorld(root: string, stores: EngineStores, sharedObjects?: SharedObjects) {
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'README.md'), '# Demo\n');
  writeFileSync(path.join(project, 'obsolete.txt'), 'remove me\n');
  writeFileSync(path.join(project, 'src/old.ts'), 'export const name = "old";\n');
  writeFileSync(path.join(project, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  const stepFile = path.join(root, 'step-3.yaml');
  writeFileSync(stepFile, ['step: Write a part', ...STEP_THREE.map((l) => l.slice(4)), ''].join('\n'));
  const services: RemakeService[] = [];
  const make = (dataDir: string, remake: boolean) => {
    const s = remakeService(stores, path.join(root, dataDir), remake, sharedObjects);
    services.push(s);
    return s;
  };
  /** The project as a bare git repository with one commit on main; its file:// URL. */
  const gitProject = () => {
    gitIn(project, 'init', '-q');
    gitIn(project, 'add', '-A');
    gitIn(project, 'commit', '-qm', 'the project');
    const bare = path.join(root, 'project.git');
    gitIn(root, 'clone', '-q', '--bare', project, bare);
    return { bare, url: pathToFileURL(bare).href };
  };
  return { root, project, stepFile, stores, make, gitProject, idle: () => Promise.all(services.map((s) => s.runs.idle())) };
}

export type RemakeWorld = ReturnType<typeof remakeWorld>;

/** The entries of the plan's changeset as [path, operation, content after, origin, rewound], in recorded order. */
export async function entriesOf(s: RemakeService, planId: string) {
  const { changesetId } = await s.ctx.get(planId);
  const metas = changesetId ? await s.ctx.stores.changesets.listEntryMeta(changesetId, { offset: 0, limit: 1000 }) : [];
  return metas.map((m) => [m.path, m.operation, m.afterHash, m.origin ?? 'agent', m.rewound ?? false]);
}


/** What one uninterrupted run of the same plan gives: its sandbox and its changeset. */
export async function remakeReference(w: RemakeWorld) {
  const reference = w.make('reference', false);
  const plan = await reference.authoring.createFromContent({ content: remakePlanText(w.project) }, w.root);
  expect(await reference.running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  const entries = await entriesOf(reference, plan.id);
  expect(entries.map((e) => e[0])).toEqual(['docs/guide.md', 'README.md', 'obsolete.txt', 'src/new.ts', 'data.bin', 'logo.png', 'partial.txt', 'out/after.txt']);
  return { tree: treeState((await reference.ctx.get(plan.id)).sandboxRefs[0]), entries };
}

/** The plan run by `first` until its third step fails, having written its part; then the step is fixed, and the plan is ready to run again. */
export async function failAtStepThree(first: RemakeService, w: RemakeWorld, fix = true, git?: string) {
  const plan = await first.authoring.createFromContent({ content: remakePlanText(w.project, { failing: true, git }) }, w.root);
  expect(await first.running.run(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored' });
  const steps = stepsInOrder(await first.ctx.lifecycle.listDecisions(plan.id)).map((d) => d.status);
  expect(steps).toEqual(['done', 'done', 'failed', 'pending']);
  expect((await entriesOf(first, plan.id)).at(-1)?.[0]).toBe('partial.txt');
  if (fix) await first.fixing.editStep(plan.id, { by: 'ada', step: 3, file: w.stepFile });
  return plan;
}
