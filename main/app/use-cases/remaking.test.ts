import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsInOrder } from '../../../shared/decision-tree';
import { treeState } from '../../engine/tools/test-support';
import { openStores, type SqliteStores } from '../../persistence';
import { sandboxExecutorFactory } from '../executor-factory';
import { SettingsStore } from '../settings';
import { planAuthoring } from './authoring';
import { planCheckpoints } from './checkpoints';
import { planApprovals } from './approvals';
import { planFixing } from './fixing';
import { PlanContext } from './plan-context';
import { RunRegistry } from './run-registry';
import { planRunning } from './running';
import { planVerifying } from './verifying';

const STEP_THREE = ['    tools:', '      - tool: file.write', '        args: { path: partial.txt, content: "written by step 3" }'];

/**
 * Four steps making every kind of change (text and binary, create, modify, delete, rename). With
 * `failing`, the third writes a file and then fails (an edit of a heading that is not there), as a
 * worker that died there would leave it; an edit of the step (STEP_THREE) fixes it.
 */
function planText(project: string, options: { profile?: string; failing?: boolean } = {}): string {
  return [
    'name: remade',
    `project: ${JSON.stringify(project)}`,
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
function service(stores: SqliteStores, dataDir: string, remakeSandboxes: boolean) {
  mkdirSync(dataDir, { recursive: true });
  const runs = new RunRegistry(stores.leases);
  const ctx = new PlanContext({ stores, dataDir, settings: new SettingsStore(path.join(dataDir, 'settings.json')), env: {}, sleep: () => Promise.resolve(), remakeSandboxes }, runs);
  const verifying = planVerifying(ctx, runs);
  const running = planRunning(ctx, runs, sandboxExecutorFactory(ctx, verifying.checkStep), verifying.verifyPass);
  return { ctx, runs, running, fixing: planFixing(ctx, runs, running.run, verifying), approvals: planApprovals(ctx, runs, running.runFrom), checkpoints: planCheckpoints(ctx, runs), authoring: planAuthoring(ctx) };
}

let root: string | null = null;
let stores: SqliteStores | null = null;
let services: ReturnType<typeof service>[] = [];
afterEach(async () => {
  for (const s of services) await s.runs.idle();
  services = [];
  stores?.close();
  stores = null;
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

function world() {
  root = mkdtempSync(path.join(tmpdir(), 'agents-remaking-'));
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'README.md'), '# Demo\n');
  writeFileSync(path.join(project, 'obsolete.txt'), 'remove me\n');
  writeFileSync(path.join(project, 'src/old.ts'), 'export const name = "old";\n');
  writeFileSync(path.join(project, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  // One SQLite file every service shares, in a folder of its own: the shared stores of team mode.
  const shared = path.join(root, 'shared');
  mkdirSync(shared);
  stores = openStores(shared);
  const stepFile = path.join(root, 'step-3.yaml');
  writeFileSync(stepFile, ['step: Write a part', ...STEP_THREE.map((l) => l.slice(4)), ''].join('\n'));
  const make = (dataDir: string, remake: boolean) => {
    const s = service(stores as SqliteStores, path.join(root as string, dataDir), remake);
    services.push(s);
    return s;
  };
  return { root, project, stepFile, stores, make };
}

/** The entries of the plan's changeset as [path, operation, content after, origin, rewound], in recorded order. */
async function entriesOf(s: ReturnType<typeof service>, planId: string) {
  const { changesetId } = await s.ctx.get(planId);
  const metas = changesetId ? await s.ctx.stores.changesets.listEntryMeta(changesetId, { offset: 0, limit: 1000 }) : [];
  return metas.map((m) => [m.path, m.operation, m.afterHash, m.origin ?? 'agent', m.rewound ?? false]);
}

/** What one uninterrupted run of the same plan gives: its sandbox and its changeset. */
async function uninterrupted(w: ReturnType<typeof world>) {
  const reference = w.make('reference', false);
  const plan = await reference.authoring.createFromContent({ content: planText(w.project) }, w.root);
  expect(await reference.running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  const entries = await entriesOf(reference, plan.id);
  expect(entries.map((e) => e[0])).toEqual(['docs/guide.md', 'README.md', 'obsolete.txt', 'src/new.ts', 'data.bin', 'logo.png', 'partial.txt', 'out/after.txt']);
  return { tree: treeState((await reference.ctx.get(plan.id)).sandboxRefs[0]), entries };
}

/** The plan run by `first` until its third step fails, having written its part; then the step is fixed, and the plan is ready to run again. */
async function failedAtStepThree(first: ReturnType<typeof service>, w: ReturnType<typeof world>, fix = true) {
  const plan = await first.authoring.createFromContent({ content: planText(w.project, { failing: true }) }, w.root);
  expect(await first.running.run(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored' });
  const steps = stepsInOrder(await first.ctx.lifecycle.listDecisions(plan.id)).map((d) => d.status);
  expect(steps).toEqual(['done', 'done', 'failed', 'pending']);
  expect((await entriesOf(first, plan.id)).at(-1)?.[0]).toBe('partial.txt');
  if (fix) await first.fixing.editStep(plan.id, { by: 'ada', step: 3, file: w.stepFile });
  return plan;
}

describe('a run remakes a sandbox that is gone or not its own (remakeSandboxes)', () => {
  it('a second worker with another data directory runs on a plan the first left failed: its sandbox is remade, the plan finishes as one run would, each change recorded once', async () => {
    const w = world();
    const expected = await uninterrupted(w);
    const first = w.make('worker-a', true);
    const plan = await failedAtStepThree(first, w);
    const firstSandbox = (await first.ctx.get(plan.id)).sandboxRefs[0];
    expect(firstSandbox).toBe(path.join(w.root, 'worker-a', 'sandboxes', plan.id));

    const second = w.make('worker-b', true);
    const done = await second.running.run(plan.id);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const remade = path.join(w.root, 'worker-b', 'sandboxes', plan.id);
    expect(done.sandboxRefs).toEqual([remade]);
    expect(treeState(remade)).toEqual(expected.tree);
    const entries = await entriesOf(second, plan.id);
    expect(entries).toEqual(expected.entries);
    expect(new Set(entries.map((e) => JSON.stringify(e))).size).toBe(entries.length);
    // The first worker's folder is its own: left as it was.
    expect(existsSync(path.join(firstSandbox, 'out/after.txt'))).toBe(false);
  });

  it('a sandbox deleted under a failed plan is refused without the option; with it, a retry remakes it in place and records nothing twice, and a rewind after the remake works', async () => {
    const w = world();
    const expected = await uninterrupted(w);
    const console = w.make('data', false);
    const plan = await failedAtStepThree(console, w, false);
    const sandbox = (await console.ctx.get(plan.id)).sandboxRefs[0];
    const failedTree = treeState(sandbox);
    const failedEntries = await entriesOf(console, plan.id);
    rmSync(sandbox, { recursive: true });
    await expect(console.fixing.retry(plan.id)).rejects.toThrow(/is gone/);

    // The retry remakes the sandbox, step 3 writes its part again (the same content: no new entry) and fails again.
    const worker = w.make('data', true);
    expect(await worker.fixing.retry(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored', sandboxRefs: [sandbox] });
    expect(treeState(sandbox)).toEqual(failedTree);
    expect(await entriesOf(worker, plan.id)).toEqual(failedEntries);

    rmSync(sandbox, { recursive: true });
    await worker.fixing.editStep(plan.id, { by: 'ada', step: 3, file: w.stepFile });
    expect(await worker.running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued', sandboxRefs: [sandbox] });
    expect(treeState(sandbox)).toEqual(expected.tree);
    expect(await entriesOf(worker, plan.id)).toEqual(expected.entries);

    // Back to before step 3: the checkpoints' contents are in this data directory's object folder.
    await worker.checkpoints.rewind(plan.id, { by: 'ada', toStep: 3 });
    const { 'partial.txt': _partial, ...withoutPartial } = failedTree;
    expect(treeState(sandbox)).toEqual(withoutPartial);
    const laterSteps = ['partial.txt', 'out/after.txt'];
    expect((await entriesOf(worker, plan.id)).filter((e) => !e[4])).toEqual(expected.entries.filter((e) => !laterSteps.includes(e[0] as string)));
  });

  it('approvals answered in turn by two workers: each remakes the sandbox the other left, and the run ends as one run would', async () => {
    const w = world();
    const expected = await uninterrupted(w);
    const workers = [w.make('worker-a', true), w.make('worker-b', true)];
    const plan = await workers[0].authoring.createFromContent({ content: planText(w.project, { profile: 'supervised' }) }, w.root);
    let now = await workers[0].running.run(plan.id);
    const sandboxes = new Set<string>();
    for (let turn = 1; now.processingState === 'paused' && turn < 10; turn++) {
      sandboxes.add(now.sandboxRefs[0]);
      now = await workers[turn % 2].approvals.approve(plan.id, { by: `operator ${turn}` });
    }
    expect(now).toMatchObject({ phase: 'apply', processingState: 'queued' });
    // Paused at file.delete, file.rename and shell.run: three answers, each on the other worker.
    expect(sandboxes).toEqual(new Set(workers.map((s) => path.join(s.ctx.options.dataDir, 'sandboxes', plan.id))));
    expect(treeState(now.sandboxRefs[0])).toEqual(expected.tree);
    const entries = await entriesOf(workers[0], plan.id);
    expect(entries).toEqual(expected.entries);
  });
});
