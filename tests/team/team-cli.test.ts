import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunQueue, type WorkerInfo } from '../../main/app/team/run-queue';
import { createTestDatabase, postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { agents } from '../cli/cli-harness';
import { type ShownPlan, Team } from './team-harness';

const write = (path: string) => `[{ tool: file.write, args: { path: ${path}, content: "x\\n" } }]`;

/** A plan file in `team.base`: one step per line of `steps` (its text, then its tools). */
function planFile(team: Team, project: string, name: string, profile: string, steps: [string, string][]): string {
  const file = join(team.base, `${name}.yaml`);
  const lines = steps.flatMap(([step, tools]) => [`  - step: ${step}`, `    tools: ${tools}`]);
  writeFileSync(file, [`name: ${name}`, `project: ${JSON.stringify(project)}`, `automationProfile: ${profile}`, 'definitionOfDone:', ...lines, ''].join('\n'));
  return file;
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode from the CLI: exit codes, --detach, agents workers, agents db migrate'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  const dropped: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await team?.dispose();
    for (const drop of dropped) await drop();
  });

  it('follows a queued run to its end with the exit codes of embedded mode, and --detach returns at once', async () => {
    team = new Team(database.url());
    // A fresh database, migrated explicitly, twice.
    for (let i = 0; i < 2; i++) {
      const migrated = await team.agents(['db', 'migrate']);
      expect([migrated.code, migrated.stderr]).toEqual([0, '']);
      expect(migrated.stdout).toMatch(/^team database at schema version \d+\n$/);
    }
    const project = join(team.base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    // Queued while no worker runs: the command says the run waits for one.
    const early = await team.create(planFile(team, project, 'early', 'trusted', [['Write a file', write('e.txt')]]));
    const alone = await team.agents(['plan', 'run', early, '--detach']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).toContain('note: no worker is live on the team database; the run waits in the queue until one starts (agents worker)');
    const [a, b] = await Promise.all([team.worker('worker-a'), team.worker('worker-b')]);
    await team.allReadyToApply([early], 30_000);

    const ok = await team.create(planFile(team, project, 'ok', 'trusted', [['Write a file', write('a.txt')]]));
    // Step mode needs the run in this process: refused in one line, and nothing is queued.
    const stepped = await team.agents(['plan', 'run', ok, '--step']);
    expect(stepped.code).toBe(2);
    expect(stepped.stderr).toBe('error: step: is not available in team mode: a worker runs the plan, and only its approvals stop it\n');
    const done = await team.agents(['plan', 'run', ok, '--stream']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/file\.write ok/);
    expect(done.stderr).toContain('ok: Ready to apply');
    expect(done.stderr).not.toContain('no worker is live');
    // A job of the plan run again after its run ended (its worker died before the queue heard) leaves it ready to apply.
    const queue = await RunQueue.open(team.url, { name: 'test', supervise: false, migrate: false });
    try {
      expect(await queue.enqueue(ok, { reason: 'run' })).not.toBeNull();
      await team.until('the stray job taken', 30_000, async () => ([a, b].some((w) => w.log().includes(`plan ${ok}: not run (it is Ready to apply)`)) ? true : undefined), 200);
      // Jobs whose plan was discarded, or deleted, since they were queued: nothing runs, nothing is retried, no worker dies.
      const dropped = await team.create(planFile(team, project, 'dropped', 'trusted', [['Write a file', write('d.txt')]]));
      const discarded = await team.agents(['plan', 'discard', dropped]);
      expect(discarded.code, discarded.stderr).toBe(0);
      expect(await queue.enqueue(dropped, { reason: 'run' })).not.toBeNull();
      expect(await queue.enqueue('01JDELETEDPLAN0000000000000', { reason: 'run' })).not.toBeNull();
      const said = (line: string) => [a, b].some((w) => w.log().includes(line));
      await team.until('the jobs of a discarded and a deleted plan taken', 30_000, async () => (said(`plan ${dropped}: not run (it is Discarded)`) && said('plan 01JDELETEDPLAN0000000000000: not run (it was deleted)') ? true : undefined), 200);
      expect(await queue.depth()).toEqual({ queued: 0, active: 0 });
      expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);
      expect(await team.json<ShownPlan>(['plan', 'show', dropped])).toMatchObject({ processingState: 'cancelled' });
    } finally {
      await queue.stop(1000);
    }
    expect(await team.json<ShownPlan>(['plan', 'show', ok])).toMatchObject({ phase: 'apply', processingState: 'queued' });

    // Fails; its step edited from the CLI and run again, it ends ready to apply.
    const failing = await team.create(planFile(team, project, 'failing', 'trusted', [['Fail', '[{ tool: shell.run, args: { command: "exit 3" } }]'], ['Write a file', write('f.txt')]]));
    const failed = await team.agents(['plan', 'run', failing]);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(/^failing: Failed/m);
    const fixed = join(team.base, 'fixed-step.yaml');
    writeFileSync(fixed, 'step: Fail no more\ntools: [{ tool: shell.run, args: { command: "true" } }]\n');
    const edited = await team.agents(['plan', 'edit-step', failing, '--step', '1', '--file', fixed]);
    expect(edited.code, edited.stderr).toBe(0);
    const retried = await team.agents(['plan', 'run', failing]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr).toContain('failing: Ready to apply');

    // supervised: the shell command waits for an answer; the worker lets the run go; the CLI exits 3.
    const asking = await team.create(planFile(team, project, 'asking', 'supervised', [['Run a command', '[{ tool: shell.run, args: { command: "true" } }]']]));
    const waiting = await team.agents(['plan', 'run', asking]);
    expect(waiting.code, waiting.stderr).toBe(3);
    expect(waiting.stderr).toContain(`approve with: agents plan approve ${asking}`);
    // Answered from this client, not from the worker that asked: a worker runs the rest.
    const approved = await team.agents(['plan', 'approve', asking]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain('asking: Ready to apply');

    // --detach returns while the run has hardly begun; two slow plans run at once, one on each worker.
    const sleepy = (name: string) => planFile(team!, project, name, 'trusted', [['Sleep', '[{ tool: shell.run, args: { command: "sleep 15" } }]']]);
    const slow = [await team.create(sleepy('slow-1')), await team.create(sleepy('slow-2'))];
    const started = Date.now();
    const detached = await Promise.all(slow.map((id) => team!.agents(['plan', 'run', id, '--detach'])));
    for (const result of detached) expect(result.code, result.stderr).toBe(0);
    const shown = await Promise.all(slow.map((id) => team!.json<ShownPlan>(['plan', 'show', id])));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(shown.map((p) => p.phase)).not.toContain('apply');
    const busy = await team.until('both workers busy', 30_000, async () => {
      const { workers } = await team!.json<{ workers: WorkerInfo[] }>(['workers']);
      return workers.every((w) => w.plans.length === 1) ? workers : undefined;
    }, 300);
    expect(busy.map((w) => w.name).sort()).toEqual(['worker-a', 'worker-b']);
    expect(busy.flatMap((w) => w.plans).sort()).toEqual([...slow].sort());
    const text = await team.agents(['workers']);
    for (const w of busy) expect(text.stdout).toMatch(new RegExp(`^${w.name} .* live .* 1/1: ${w.plans[0]}$`, 'm'));
    await team.allReadyToApply(slow, 60_000);
    expect(new Set([...a.ran(), ...b.ran()])).toEqual(new Set([early, ok, failing, asking, ...slow]));

    // Every connection of the workers cut: each says so once, reconnects, and takes runs again.
    const cut = await team.query<{ cut: boolean }>('SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    expect(cut.length).toBeGreaterThan(0);
    await team.until('the workers to say they lost the database', 30_000, async () => ([a, b].every((w) => /: database: terminating connection/.test(w.log())) ? true : undefined), 200);
    const after = await team.create(planFile(team, project, 'after', 'trusted', [['Write a file', write('after.txt')]]));
    const afterRun = await team.agents(['plan', 'run', after]);
    expect(afterRun.code, `${afterRun.stderr}\n${a.log()}\n${b.log()}`).toBe(0);
    for (const w of [a, b]) expect(w.log().match(/: database: terminating connection/g)).toHaveLength(1);

    // SIGTERM: the worker stops taking runs, leaves the list, and exits 0.
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(a.log()).toMatch(/worker-a: stopped\n$/);
    const left = await team.json<{ workers: WorkerInfo[] }>(['workers']);
    expect(left.workers.map((w) => w.name)).toEqual(['worker-b']);
  }, 240_000);

  it('says in one line, with exit 2, that a database cannot be reached or has a newer schema', async () => {
    const home = join((team ??= new Team(database.url())).base, 'elsewhere');
    const unreachable = 'postgresql://agents@127.0.0.1:1/team';
    for (const args of [['plan', 'list'], ['plan', 'run', '01M8NOPLAN'], ['workers'], ['db', 'migrate'], ['worker']]) {
      const result = await agents(['--database', unreachable, ...args], home);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).toContain('127.0.0.1:1');
    }

    const newer = await createTestDatabase(testPostgres().url!);
    dropped.push(newer.drop);
    expect((await agents(['--database', newer.url, 'db', 'migrate'], home)).code).toBe(0);
    const stores = new Team(newer.url);
    await stores.query('UPDATE agents_schema SET version = version + 1');
    await stores.dispose();
    for (const args of [['plan', 'list'], ['db', 'migrate'], ['worker']]) {
      const result = await agents(['--database', newer.url, ...args], home);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(/newer than this agents knows/);
    }
  }, 120_000);
});
