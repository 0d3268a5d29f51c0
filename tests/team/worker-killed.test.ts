import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { Team, type TeamWorker } from './team-harness';

/** Three steps; the second sleeps long enough to stop its worker in the middle of it. */
function slowPlan(project: string, sleep: number): string {
  return [
    'name: slow',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
    '  - step: Take a while, then write the middle file',
    '    tools:',
    `      - { tool: shell.run, args: { command: "sleep ${sleep}" } }`,
    '      - { tool: file.write, args: { path: middle.txt, content: "m\\n" } }',
    '  - step: Write the second file',
    '    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]',
    '',
  ].join('\n');
}

/**
 * Two workers; the slow plan queued and followed from the CLI; once its shell command runs (the
 * first step committed), `stop` is done to whichever worker holds it, and the other must finish it.
 */
async function runAndStopHolder(team: Team, sleep: number, stop: (holder: TeamWorker) => Promise<void>) {
  const project = join(team.base, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(team.base, 'slow.yaml');
  writeFileSync(file, slowPlan(project, sleep));
  const workers = await Promise.all([team.worker('worker-a'), team.worker('worker-b')]);
  const id = await team.create(file);
  const following = team.agents(['plan', 'run', id, '--stream']);
  await team.until('shell.run started', 60_000, async () => {
    const rows = await team.query(`SELECT 1 FROM events WHERE plan_id = $1 AND type = 'tool_call_started' AND data->>'tool' = 'shell.run'`, [id]);
    return rows.length > 0 ? true : undefined;
  }, 200);
  const holder = workers.find((w) => w.ran().has(id));
  expect(holder, workers.map((w) => w.log()).join('\n')).toBeDefined();
  const other = workers.find((w) => w !== holder)!;
  // As a worker on another machine leaves its lease: a pid that cannot be asked about here, only a heartbeat's age.
  const moved = await team.query("UPDATE plan_leases SET hostname = 'another-machine', heartbeat_at = $2 WHERE plan_id = $1 RETURNING plan_id", [id, new Date().toISOString()]);
  expect(moved).toHaveLength(1);
  const stoppedAt = Date.now();
  await stop(holder!);

  await team.allReadyToApply([id], 60_000);
  const seconds = (Date.now() - stoppedAt) / 1000;
  const takenAt = new RegExp(`^(\\S+) ${other.name}: plan ${id}: taken over \\(attempt 2\\)`, 'm').exec(other.log());
  expect(takenAt, other.log()).not.toBeNull();
  console.log(`${other.name} took the plan over ${((Date.parse(takenAt![1]!) - stoppedAt) / 1000).toFixed(1)} s after ${holder!.name} stopped, and finished it after ${seconds.toFixed(1)} s`);
  expect(seconds).toBeLessThan(60);
  expect(other.log()).toContain(`plan ${id}: Ready to apply`);
  const followed = await following;
  expect(followed.code, followed.stderr).toBe(0);
  expect(followed.stderr).toContain('slow: Ready to apply');
  expect(followed.stdout.match(/^file\.write ok/gm)).toHaveLength(3);

  // Each file once in the changeset, each write once in the tool log, however many workers ran the plan.
  const entries = await team.query<{ path: string; n: number }>(
    'SELECT e.path, count(*)::int AS n FROM change_entries e JOIN changesets c ON c.id = e.changeset_id WHERE c.plan_id = $1 GROUP BY e.path ORDER BY e.path',
    [id],
  );
  const once = [
    { path: 'middle.txt', n: 1 },
    { path: 'one.txt', n: 1 },
    { path: 'two.txt', n: 1 },
  ];
  expect(entries).toEqual(once);
  const writes = await team.query<{ path: string; n: number }>(
    `SELECT args->>'path' AS path, count(*)::int AS n FROM tool_invocations WHERE plan_id = $1 AND tool = 'file.write' AND ok GROUP BY 1 ORDER BY 1`,
    [id],
  );
  expect(writes).toEqual(once);
  const diff = await team.json<{ entries: { path: string; operation: string }[] }>(['plan', 'diff', id]);
  expect(diff.entries.map((e) => [e.path, e.operation]).sort()).toEqual([
    ['middle.txt', 'create'],
    ['one.txt', 'create'],
    ['two.txt', 'create'],
  ]);

  // The survivor remade the sandbox in its own data directory: the base, and every change.
  const sandbox = join(other.home, 'sandboxes', id);
  expect(existsSync(sandbox), `no sandbox at ${sandbox}`).toBe(true);
  expect(['README.md', 'one.txt', 'middle.txt', 'two.txt'].map((f) => readFileSync(join(sandbox, f), 'utf8'))).toEqual(['# Demo\n', '1\n', 'm\n', '2\n']);
  return { id, holder: holder!, other };
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode with real processes: a worker killed or asleep mid-run'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  afterEach(() => team?.dispose());

  it('hands the plan of a SIGKILLed worker to the other, which finishes it within 60 s with every change recorded once', async () => {
    team = new Team(database.url());
    await runAndStopHolder(team, 8, async (holder) => {
      holder.child.kill('SIGKILL');
      expect(await holder.exited).toBe('SIGKILL');
      const listed = await team!.json<{ workers: { name: string; plans: string[] }[] }>(['workers']);
      expect(listed.workers.find((w) => w.name === holder.name)?.plans).toHaveLength(1);
    });
  }, 180_000);

  it('hands the plan of a worker asleep past its heartbeat (SIGSTOP) to the other; woken, the sleeper ends at once and records nothing more', async () => {
    team = new Team(database.url());
    let woken: number | NodeJS.Signals | null = null;
    // The sleeper's shell command ends while it sleeps: woken, it would record it and go on, but for the lost job.
    const { id, holder } = await runAndStopHolder(team, 15, async (holder) => {
      holder.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      holder.child.kill('SIGCONT');
      woken = await holder.exited;
    });
    expect(woken).toBe(75);
    expect(holder.log()).toMatch(new RegExp(`plan ${id}: this worker lost its job \\(it stopped beating\\); another worker takes the plan over\\n$`));
    // One shell command finished (the taker's): the sleeper's was never recorded.
    const shells = await team.query<{ n: number }>(`SELECT count(*)::int AS n FROM tool_invocations WHERE plan_id = $1 AND tool = 'shell.run'`, [id]);
    expect(shells).toEqual([{ n: 1 }]);
  }, 180_000);
});
