import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { Team } from './team-harness';

function threeSteps(project: string): string {
  return [
    'name: three',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
    '  - step: Make the script runnable, link it, and leave an empty folder',
    '    tools:',
    '      - { tool: shell.run, args: { command: "chmod 755 run.sh && ln -s run.sh start && mkdir -p empty" } }',
    '  - step: Write the last file',
    '    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]',
    '',
  ].join('\n');
}

/**
 * A plan run by a worker keeps its sandbox in the worker's data directory (another machine, as far
 * as the client can tell). A rewind and a verify from the client are not refused for it: the client
 * remakes the sandbox in its own data directory, rewinds it there, and the next run, on the worker,
 * remakes it again from the database and finishes the plan.
 */
describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode: a rewind from a client of a plan whose sandbox is on a worker'), () => {
  const database = useFreshDatabase();
  let team: Team;
  afterEach(async () => {
    await team?.dispose();
  });

  it('rewinds on the client, the sandbox there equal to the checkpoint, and the worker runs the plan on', async () => {
    team = new Team(database.url());
    const project = join(team.base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'run.sh'), 'echo run\n');
    chmodSync(join(project, 'run.sh'), 0o644);
    const file = join(team.base, 'three.yaml');
    writeFileSync(file, threeSteps(project));
    const worker = await team.worker('worker-a');
    const id = await team.create(file);
    const ran = await team.agents(['plan', 'run', id]);
    expect(ran.code, ran.stderr).toBe(0);
    const before = await team.json<Plan>(['plan', 'show', id]);
    expect(before.sandboxRefs[0]!.startsWith(worker.home)).toBe(true);

    const rewind = await team.agents(['plan', 'rewind', id, '--to-step', '3']);
    expect(rewind.code, rewind.stderr).toBe(0);
    const rewound = await team.json<Plan>(['plan', 'show', id]);
    const here = rewound.sandboxRefs[0]!;
    expect(here.startsWith(team.clientHome)).toBe(true);
    // As before step 3: step 2's mode, link and folder kept, step 3's file gone.
    expect(lstatSync(join(here, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(here, 'start'))).toBe('run.sh');
    expect(lstatSync(join(here, 'empty')).isDirectory()).toBe(true);
    expect(readFileSync(join(here, 'one.txt'), 'utf8')).toBe('1\n');
    expect(existsSync(join(here, 'two.txt'))).toBe(false);
    expect(rewound).toMatchObject({ phase: 'execute', processingState: 'queued' });

    const again = await team.agents(['plan', 'run', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(await team.json<Plan>(['plan', 'show', id])).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const verify = await team.agents(['plan', 'verify', id]);
    expect(verify.code, verify.stderr).toBe(0);
  }, 240_000);
});
