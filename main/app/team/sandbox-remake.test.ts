import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn } from '../../engine/test-support/git-repos';
import { treeState } from '../../engine/tools/test-support';
import { openPostgresStores, type PostgresStores } from '../../persistence/postgres/stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { entriesOf, failAtStepThree, remakePlanText, remakeReference, remakeWorld } from '../use-cases/test-support';

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

  it('a git project: worker B clones the plan’s base commit, not where main has moved since, and lays the recorded changes on it', async () => {
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
    expect(remakes.map((e) => e.data)).toEqual([{ sandboxRoot: done.sandboxRefs[0], base: 'git', baseCommit, files: 7, drift: [] }]);
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
