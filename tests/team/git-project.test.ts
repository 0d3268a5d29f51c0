import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitIn as git, makeBareRepo } from '../../main/engine/test-support/git-repos';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { Team } from './team-harness';

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode with real processes: a project from a file:// git repository'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  afterAll(() => team?.dispose());

  it('is cloned and run by a worker, then applied from the client into a local clone and to a new branch', async () => {
    team = new Team(database.url());
    const repo = makeBareRepo(team.base);
    const file = join(team.base, 'team.yaml');
    writeFileSync(
      file,
      [
        'name: from-git',
        `project: { git: "${repo.url}", ref: main }`,
        'automationProfile: trusted',
        'definitionOfDone:',
        '  - step: Write a file and change the README',
        '    tools:',
        '      - { tool: file.write, args: { path: out/1.txt, content: "1\\n" } }',
        '      - { tool: file.edit, args: { path: README.md, find: "version two", replace: "version three" } }',
        '',
      ].join('\n'),
    );
    const worker = await team.worker('worker-a');
    const ids = [await team.create(file), await team.create(file)];
    for (const id of ids) {
      const run = await team.agents(['plan', 'run', id]);
      expect(run.code, `${run.stderr}\n${worker.log()}`).toBe(0);
      expect(worker.ran().has(id)).toBe(true);
      expect((await team.agents(['plan', 'show', id])).stdout).toContain(`project:    ${repo.url} at main (${repo.head.slice(0, 12)})`);
    }

    // Into the operator's clone: the conflict check against the recorded base passes, both files are written.
    const clone = join(team.base, 'mine');
    git(team.base, 'clone', '-q', repo.url, clone);
    const applied = await team.agents(['plan', 'apply', ids[0]!, '--project', clone]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`applied 2 files into ${clone}`);
    expect(readFileSync(join(clone, 'out/1.txt'), 'utf8')).toBe('1\n');
    expect(readFileSync(join(clone, 'README.md'), 'utf8')).toBe('# Demo\n\nversion three\n');

    // To a new branch of the repository, committed at the plan's base and pushed.
    const pushed = await team.agents(['plan', 'apply', ids[1]!, '--branch', 'agents/team']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(new RegExp(`^applied 2 files to branch agents/team of ${repo.url} \\(commit [0-9a-f]{12}\\)\n$`));
    expect(git(repo.bare, 'show', 'agents/team:out/1.txt')).toBe('1');
    expect(git(repo.bare, 'show', 'agents/team:README.md')).toBe('# Demo\n\nversion three');
    expect(git(repo.bare, 'rev-parse', 'agents/team~1')).toBe(repo.head);

    const shown = await team.json<{ processingState: string; phase: string }>(['plan', 'show', ids[1]!]);
    expect(shown).toMatchObject({ phase: 'apply', processingState: 'complete' });
  }, 180_000);
});
