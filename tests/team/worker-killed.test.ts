import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { Team } from './team-harness';

/** Three steps; the second sleeps long enough to kill its worker in the middle of it. */
function slowPlan(project: string): string {
  return [
    'name: slow',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
    '  - step: Take a while, then write the middle file',
    '    tools:',
    '      - { tool: shell.run, args: { command: "sleep 8" } }',
    '      - { tool: file.write, args: { path: middle.txt, content: "m\\n" } }',
    '  - step: Write the second file',
    '    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]',
    '',
  ].join('\n');
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode with real processes: a worker killed mid-run'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  afterAll(() => team?.dispose());

  it('hands the plan of a SIGKILLed worker to the other, which finishes it within 60 s with every change recorded once', async () => {
    team = new Team(database.url());
    const project = join(team.base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    const file = join(team.base, 'slow.yaml');
    writeFileSync(file, slowPlan(project));
    const workers = await Promise.all([team.worker('worker-a'), team.worker('worker-b')]);
    const id = await team.create(file);
    // Followed from the CLI through the takeover, to the end.
    const following = team.agents(['plan', 'run', id, '--stream']);

    // Kill whichever worker runs the plan once its shell command runs (the first step is committed by then).
    await team.until('shell.run started', 60_000, async () => {
      const rows = await team!.query(`SELECT 1 FROM events WHERE plan_id = $1 AND type = 'tool_call_started' AND data->>'tool' = 'shell.run'`, [id]);
      return rows.length > 0 ? true : undefined;
    }, 200);
    const holder = workers.find((w) => w.ran().has(id));
    expect(holder, workers.map((w) => w.log()).join('\n')).toBeDefined();
    const other = workers.find((w) => w !== holder)!;
    // As a worker on another machine leaves its lease: a pid that cannot be asked about here, only a heartbeat's age.
    const moved = await team.query("UPDATE plan_leases SET hostname = 'another-machine', heartbeat_at = $2 WHERE plan_id = $1 RETURNING plan_id", [id, new Date().toISOString()]);
    expect(moved).toHaveLength(1);
    const killedAt = Date.now();
    holder!.child.kill('SIGKILL');
    expect(await holder!.exited).toBe('SIGKILL');

    const listed = await team.json<{ workers: { name: string; plans: string[] }[] }>(['workers']);
    expect(listed.workers.find((w) => w.name === holder!.name)?.plans).toEqual([id]);

    await team.allReadyToApply([id], 60_000);
    const seconds = (Date.now() - killedAt) / 1000;
    const takenAt = new RegExp(`^(\\S+) ${other.name}: plan ${id}: taken over \\(attempt 2\\)`, 'm').exec(other.log());
    expect(takenAt, other.log()).not.toBeNull();
    const takenAfter = (Date.parse(takenAt![1]!) - killedAt) / 1000;
    console.log(`${holder!.name} killed: ${other.name} took the plan over after ${takenAfter.toFixed(1)} s and finished it after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(60);
    expect(other.log()).toContain(`plan ${id}: Ready to apply`);
    const followed = await following;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stderr).toContain('slow: Ready to apply');
    expect(followed.stdout.match(/^file\.write ok/gm)).toHaveLength(3);

    // Each file once in the changeset, each write once in the tool log, however many workers ran the plan.
    const entries = await team.query<{ path: string; n: number }>(
      `SELECT e.path, count(*)::int AS n FROM change_entries e JOIN changesets c ON c.id = e.changeset_id
        WHERE c.plan_id = $1 GROUP BY e.path ORDER BY e.path`,
      [id],
    );
    expect(entries).toEqual([
      { path: 'middle.txt', n: 1 },
      { path: 'one.txt', n: 1 },
      { path: 'two.txt', n: 1 },
    ]);
    const writes = await team.query<{ path: string; n: number }>(
      `SELECT args->>'path' AS path, count(*)::int AS n FROM tool_invocations WHERE plan_id = $1 AND tool = 'file.write' AND ok GROUP BY 1 ORDER BY 1`,
      [id],
    );
    expect(writes).toEqual([
      { path: 'middle.txt', n: 1 },
      { path: 'one.txt', n: 1 },
      { path: 'two.txt', n: 1 },
    ]);
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
  }, 180_000);
});
