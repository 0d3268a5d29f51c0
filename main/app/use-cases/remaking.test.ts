import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { treeState } from '../../engine/tools/test-support';
import { treeHash, treeListing } from '../../engine/test-support/tree-hash';
import { eventText } from '../../../shared/event-text';
import { openStores, type SqliteStores } from '../../persistence';
import { remakeHere } from '../sandbox-remaking';
import { entriesOf, failAtStepThree, remakePlanText, remakeReference, remakeWorld } from './test-support';

let root: string | null = null;
let stores: SqliteStores | null = null;
let idle = () => Promise.resolve<unknown>(undefined);
afterEach(async () => {
  await idle();
  stores?.close();
  stores = null;
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

function world() {
  root = mkdtempSync(path.join(tmpdir(), 'agents-remaking-'));
  // One SQLite file every service shares, in a folder of its own: the shared stores of team mode.
  const shared = path.join(root, 'shared');
  mkdirSync(shared);
  stores = openStores(shared);
  const w = remakeWorld(root, stores);
  idle = w.idle;
  return w;
}

describe('a run remakes a sandbox that is gone or not its own (remakeSandboxes)', () => {
  it('a second worker with another data directory runs on a plan the first left failed: its sandbox is remade, the plan finishes as one run would, each change recorded once', async () => {
    const w = world();
    const expected = await remakeReference(w);
    const first = w.make('worker-a', true);
    const plan = await failAtStepThree(first, w);
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
    const remakes = (await w.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade');
    expect(remakes.map((e) => e.data)).toEqual([{ sandboxRoot: remade, base: 'project', baseCommit: null, files: 7, drift: [], checkpointStep: null, git: 'none' }]);
    // The first worker's folder is its own: left as it was.
    expect(existsSync(path.join(firstSandbox, 'out/after.txt'))).toBe(false);
  });

  it('a sandbox deleted under a failed plan is refused without the option; with it, a retry remakes it in place and records nothing twice, and a rewind after the remake works', async () => {
    const w = world();
    const expected = await remakeReference(w);
    const console = w.make('data', false);
    const plan = await failAtStepThree(console, w, false);
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

  it('a worker keeps a sandbox that is as the plan last saw it, and remakes one written to since (a killed worker’s unrecorded write) or one of the same path from elsewhere', async () => {
    const w = world();
    const expected = await remakeReference(w);
    const worker = w.make('worker', true);
    const plan = await worker.authoring.createFromContent({ content: remakePlanText(w.project, { profile: 'supervised' }) }, w.root);
    const remakes = async () => (await w.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade').length;
    const approve = () => worker.approvals.approve(plan.id, { by: 'ada' });
    const sandbox = (await worker.running.run(plan.id)).sandboxRefs[0];
    // Waiting before file.delete; answered here, the sandbox is used as it is.
    expect(await approve()).toMatchObject({ processingState: 'paused', sandboxRefs: [sandbox] });
    expect(await remakes()).toBe(0);
    // Waiting before file.rename: a write no capture saw, as a worker killed mid-step leaves it.
    const kept = path.join(w.root, 'kept');
    cpSync(sandbox, kept, { recursive: true });
    writeFileSync(path.join(sandbox, 'stray.txt'), 'never recorded\n');
    expect(await approve()).toMatchObject({ processingState: 'paused', sandboxRefs: [sandbox] });
    expect(await remakes()).toBe(1);
    expect(existsSync(path.join(sandbox, 'stray.txt'))).toBe(false);
    // Waiting before shell.run: a folder of the same path with older content (another machine's, data directories named alike).
    rmSync(sandbox, { recursive: true });
    renameSync(kept, sandbox);
    expect(await approve()).toMatchObject({ phase: 'apply', processingState: 'queued', sandboxRefs: [sandbox] });
    expect(await remakes()).toBe(2);
    expect(treeState(sandbox)).toEqual(expected.tree);
    expect(await entriesOf(worker, plan.id)).toEqual(expected.entries);
  });

  it('a plan whose local project is not on the worker’s machine fails with the category and a hint, and remakes nothing', async () => {
    const w = world();
    const first = w.make('worker-a', true);
    const plan = await failAtStepThree(first, w);
    const moved = `${w.project}-elsewhere`;
    renameSync(w.project, moved);
    const second = w.make('worker-b', true);
    const failed = await second.running.run(plan.id);
    expect(failed).toMatchObject({ processingState: 'errored', errorDetails: { category: 'project_unreachable' } });
    expect(failed.errorMessage).toContain(`its project ${w.project} is not on`);
    expect(String(failed.errorDetails.hint)).toMatch(/runs only where that folder is/);
    expect(existsSync(path.join(w.root, 'worker-b', 'sandboxes', plan.id))).toBe(false);
    expect(failed.sandboxRefs).toEqual([path.join(w.root, 'worker-a', 'sandboxes', plan.id)]);
    renameSync(moved, w.project);
  });

  it('approvals answered in turn by two workers: each remakes the sandbox the other left, and the run ends as one run would', async () => {
    const w = world();
    const expected = await remakeReference(w);
    const workers = [w.make('worker-a', true), w.make('worker-b', true)];
    const plan = await workers[0].authoring.createFromContent({ content: remakePlanText(w.project, { profile: 'supervised' }) }, w.root);
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

describe('a sandbox remade from its last checkpoint keeps what the plan did after it', () => {
  it('a mode a command changed after the last checkpoint (step 2 makes run.sh executable, then fails) is the remade sandbox’s too', async () => {
    const w = world();
    writeFileSync(path.join(w.project, 'run.sh'), 'echo run\n');
    chmodSync(path.join(w.project, 'run.sh'), 0o644);
    const worker = w.make('data', true);
    const content = [
      'name: modes after the checkpoint',
      `project: ${JSON.stringify(w.project)}`,
      'automationProfile: trusted',
      'definitionOfDone:',
      '  - step: Write a file',
      '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
      '  - step: Make the script runnable and write a note, then fail',
      '    tools:',
      '      - { tool: shell.run, args: { command: "chmod 755 run.sh && echo note > note.txt" } }',
      '      - { tool: file.edit, args: { path: one.txt, find: "## Missing", replace: "x" } }',
      '',
    ].join('\n');
    const plan = await worker.authoring.createFromContent({ content }, w.root);
    expect(await worker.running.run(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored' });
    const sandbox = (await worker.ctx.get(plan.id)).sandboxRefs[0];
    expect(statSync(path.join(sandbox, 'run.sh')).mode & 0o777).toBe(0o755);
    const left = treeState(sandbox);
    // The mode alone changed: recorded as a modify of the same content, with the mode after it.
    expect(await entriesOf(worker, plan.id)).toEqual([
      ['one.txt', 'create', expect.any(String), 'agent', false],
      ['note.txt', 'create', expect.any(String), 'agent', false],
      ['run.sh', 'modify', expect.any(String), 'agent', false],
    ]);
    const { changesetId } = await worker.ctx.get(plan.id);
    expect((await w.stores.changesets.get(changesetId!))?.entries.find((e) => e.path === 'run.sh')).toMatchObject({ mode: 0o755 });

    rmSync(sandbox, { recursive: true });
    const remade = await remakeHere(worker.ctx, await worker.ctx.get(plan.id), path.join(w.root, 'data', 'sandboxes'));
    expect(remade.sandboxRefs).toEqual([sandbox]);
    const events = (await w.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade');
    // Made from the checkpoint before step 2, then the two changes recorded after it (note.txt, and run.sh's mode).
    expect(events.map((e) => e.data)).toMatchObject([{ checkpointStep: 2, files: 2 }]);
    expect(treeState(sandbox)).toEqual(left);
    expect(statSync(path.join(sandbox, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('symbolic links, empty folders and a folder’s mode made after the last checkpoint are the remade sandbox’s too, equal by tree hash; the .git made in the sandbox is said not carried', async () => {
    const w = world();
    const worker = w.make('data', true);
    const content = [
      'name: links and folders after the checkpoint',
      `project: ${JSON.stringify(w.project)}`,
      'automationProfile: trusted',
      'definitionOfDone:',
      '  - step: Write a file',
      '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
      '  - step: Link, make folders and a repository, then fail',
      '    tools:',
      '      - { tool: shell.run, args: { command: "ln -s one.txt link.txt && ln -s missing dangling && mkdir -p empty/inner cache && chmod 700 cache && rm -rf src && git init -q" } }',
      '      - { tool: file.edit, args: { path: one.txt, find: "## Missing", replace: "x" } }',
      '',
    ].join('\n');
    const plan = await worker.authoring.createFromContent({ content }, w.root);
    expect(await worker.running.run(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored' });
    const sandbox = (await worker.ctx.get(plan.id)).sandboxRefs[0];
    const listing = treeListing(sandbox);
    expect(listing).toEqual(expect.arrayContaining(['L link.txt -> one.txt', 'L dangling -> missing', 'D empty/inner 755', 'D cache 700']));
    expect(listing.some((line) => line.startsWith('D src'))).toBe(false);
    const hash = treeHash(sandbox);

    rmSync(sandbox, { recursive: true });
    await remakeHere(worker.ctx, await worker.ctx.get(plan.id), path.join(w.root, 'data', 'sandboxes'));
    expect(treeListing(sandbox)).toEqual(listing);
    expect(treeHash(sandbox)).toBe(hash);
    const events = (await w.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade');
    expect(events.map((e) => e.data)).toMatchObject([{ checkpointStep: 2, git: 'none', ownGit: true }]);
    expect(eventText(events[0]!, () => undefined).text).toContain('; the .git made in the first sandbox is not carried (it has none)');
  });
});
