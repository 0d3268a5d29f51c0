import { chmodSync, lstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn } from '../../engine/test-support/git-repos';
import { eventText } from '../../../shared/event-text';
import { treeHash, treeListing } from '../../engine/test-support/tree-hash';
import { treeState } from '../../engine/tools/test-support';
import { SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { openPostgresStores, type PostgresStores } from '../../persistence/postgres/stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { remakeHere } from '../sandbox-remaking';
import { entriesOf, failAtStepThree, remakePlanText, remakeReference, remakeWorld } from '../use-cases/test-support';

/** Step 2 changes what a changeset does not record (a mode, a link, an empty folder); step 3 writes a file, then fails. */
function modesPlan(project: string): string {
  return [
    'name: modes',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
    '  - step: Make the script runnable, link it, and leave empty folders',
    '    tools:',
    '      - { tool: shell.run, args: { command: "chmod 755 run.sh && chmod 600 secret.txt && ln -s run.sh start && ln -s missing dangling && mkdir -p empty/inner && rm obsolete.txt" } }',
    '  - step: Write a part, then fail',
    '    tools:',
    '      - { tool: file.write, args: { path: partial.txt, content: "part\\n" } }',
    '      - { tool: file.edit, args: { path: one.txt, find: "## Missing", replace: "x" } }',
    '',
  ].join('\n');
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('sandboxes remade by workers over PostgreSQL'), () => {
  const database = useFreshDatabase();
  const opened: PostgresStores[] = [];
  const roots: string[] = [];
  let idle = () => Promise.resolve<unknown>(undefined);
  afterEach(async () => {
    await idle();
    for (const pg of opened.splice(0)) await pg.close();
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** Each worker its own pool and data directory; the database is what they share. */
  const world = async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'agents-team-remake-'));
    roots.push(root);
    const pools = [await openPostgresStores(database.url()), await openPostgresStores(database.url())];
    opened.push(...pools);
    // As a team app opens them: the PostgreSQL stores, and the checkpoint contents in the database.
    const a = remakeWorld(root, pools[0], pools[0].objects);
    const b = remakeWorld(path.join(root, 'b'), pools[1], pools[1].objects);
    idle = () => Promise.all([a.idle(), b.idle()]);
    return { a, b };
  };

  it('a plan left failed by worker A is run on by worker B: the sandbox is remade from the project and the changes in the database, the run ends as one run would, each change recorded once', async () => {
    const { a, b } = await world();
    const expected = await remakeReference(a);
    const first = a.make('worker-a', true);
    const plan = await failAtStepThree(first, a);

    const second = b.make('worker-b', true);
    const done = await second.running.run(plan.id);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued', sandboxRefs: [path.join(b.root, 'worker-b', 'sandboxes', plan.id)] });
    expect(treeState(done.sandboxRefs[0])).toEqual(expected.tree);
    const entries = await entriesOf(second, plan.id);
    expect(entries).toEqual(expected.entries);
    expect(new Set(entries.map((e) => JSON.stringify(e))).size).toBe(entries.length);

    // Back to before step 1 on B: the contents A's checkpoint took come from the database.
    await second.checkpoints.rewind(plan.id, { by: 'ada', toStep: 1 });
    expect(treeState(done.sandboxRefs[0])).toEqual(treeState(a.project));
    expect((await entriesOf(second, plan.id)).filter((e) => !e[4])).toEqual([]);
  });

  it('worker B remakes what worker A left from the last checkpoint (a mode a command changed, symbolic links, empty folders), then the changes after it: equal file for file, and to the checkpoint by tree hash', async () => {
    const { a, b } = await world();
    writeFileSync(path.join(a.project, 'run.sh'), 'echo run\n');
    chmodSync(path.join(a.project, 'run.sh'), 0o644);
    writeFileSync(path.join(a.project, 'secret.txt'), 'hush\n');
    const first = a.make('worker-a', true);
    const plan = await first.authoring.createFromContent({ content: modesPlan(a.project) }, a.root);
    const atCheckpoint = new Map<number, string>();
    first.ctx.events.subscribe((event) => {
      if (event.type === 'checkpoint_created' && event.planId === plan.id) atCheckpoint.set(event.data.step, treeHash(path.join(a.root, 'worker-a', SANDBOXES_FOLDER, plan.id)));
    });
    expect(await first.running.run(plan.id)).toMatchObject({ phase: 'execute', processingState: 'errored' });
    const original = (await first.ctx.get(plan.id)).sandboxRefs[0];
    expect(lstatSync(path.join(original, 'run.sh')).mode & 0o777).toBe(0o755);

    const second = b.make('worker-b', true);
    const remade = await remakeHere(second.ctx, await second.ctx.get(plan.id), path.join(b.root, 'worker-b', SANDBOXES_FOLDER));
    const here = remade.sandboxRefs[0];
    expect(here).toBe(path.join(b.root, 'worker-b', SANDBOXES_FOLDER, plan.id));
    expect(treeListing(here)).toEqual(treeListing(original));
    expect(treeHash(here)).toBe(treeHash(original));
    expect(lstatSync(path.join(here, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(lstatSync(path.join(here, 'secret.txt')).mode & 0o777).toBe(0o600);
    expect(readlinkSync(path.join(here, 'start'))).toBe('run.sh');
    expect(readlinkSync(path.join(here, 'dangling'))).toBe('missing');
    expect(lstatSync(path.join(here, 'empty/inner')).isDirectory()).toBe(true);
    const events = (await b.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade');
    expect(events.map((e) => e.data)).toEqual([{ sandboxRoot: here, base: 'project', baseCommit: null, files: 1, drift: [], checkpointStep: 3, git: 'none' }]);
    // Without the one change recorded after it, the sandbox is the checkpoint's tree.
    rmSync(path.join(here, 'partial.txt'));
    expect(treeHash(here)).toBe(atCheckpoint.get(3));
  });

  it('a git project: worker B clones the plan’s base commit, not where main has moved since, lays the last checkpoint and the changes after it on it, and says its .git is the clone\'s', async () => {
    const { a, b } = await world();
    const expected = await remakeReference(a);
    const repo = a.gitProject();
    const first = a.make('worker-a', true);
    const plan = await failAtStepThree(first, a, true, repo.url);
    const { baseCommit } = (await first.ctx.get(plan.id)).projectSource ?? {};
    // Someone pushes to main meanwhile.
    const other = path.join(a.root, 'other-clone');
    gitIn(a.root, 'clone', '-q', repo.bare, other);
    writeFileSync(path.join(other, 'README.md'), '# Demo\n\nmoved on\n');
    gitIn(other, 'commit', '-qam', 'moved on');
    gitIn(other, 'push', '-q', 'origin', 'HEAD:main');

    const second = b.make('worker-b', true);
    const done = await second.running.run(plan.id);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued', projectSource: { baseCommit } });
    expect(gitIn(done.sandboxRefs[0], 'rev-parse', 'HEAD')).toBe(baseCommit);
    const remakes = (await b.stores.events.list(plan.id, 0, 1000)).filter((e) => e.type === 'sandbox_remade');
    // The checkpoint before step 3, then the one file step 3 wrote before it failed; the clone's .git, not the first sandbox's.
    expect(remakes.map((e) => e.data)).toEqual([{ sandboxRoot: done.sandboxRefs[0], base: 'git', baseCommit, files: 1, drift: [], checkpointStep: 3, git: 'base' }]);
    expect(eventText(remakes[0], () => undefined).text).toContain(`its .git is the clone at commit ${baseCommit?.slice(0, 12)}, not the first sandbox's (commits made there are not carried)`);
    expect(treeState(done.sandboxRefs[0])).toEqual(expected.tree);
    expect(await entriesOf(second, plan.id)).toEqual(expected.entries);
  });

  it('approvals answered in turn by workers A and B: each remakes what the other left, and the run ends as one run would', async () => {
    const { a, b } = await world();
    const expected = await remakeReference(a);
    const workers = [a.make('worker-a', true), b.make('worker-b', true)];
    const plan = await workers[0].authoring.createFromContent({ content: remakePlanText(a.project, { profile: 'supervised' }) }, a.root);
    let now = await workers[0].running.run(plan.id);
    for (let turn = 1; now.processingState === 'paused' && turn < 10; turn++) now = await workers[turn % 2].approvals.approve(plan.id, { by: `operator ${turn}` });
    expect(now).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(treeState(now.sandboxRefs[0])).toEqual(expected.tree);
    expect(await entriesOf(workers[1], plan.id)).toEqual(expected.entries);
  });
});
