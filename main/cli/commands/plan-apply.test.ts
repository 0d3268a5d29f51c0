import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn as git, makeBareRepo } from '../../engine/test-support/git-repos';
import { inProcessCli } from '../test-support';

const step = '  - step: Write a file\n    tools:\n      - tool: file.write\n        args: { path: "out/1.txt", content: "1" }';

describe('agents plan apply --project and --branch, and plans from a git repository', () => {
  it('runs a plan from a file:// repository, applies it to a new branch and to a clone, and refuses a URL scheme it does not fetch in one line', async () => {
    const { home, agents } = inProcessCli();
    const repo = makeBareRepo(home);
    const file = join(home, 'team.yaml');
    writeFileSync(file, `name: team\nproject: { git: "${repo.url}", ref: main }\nautomationProfile: trusted\ndefinitionOfDone:\n${step}\n`);
    const created = await agents('plan', 'create', file);
    expect(created.code, created.stderr).toBe(0);
    const shown = JSON.parse((await agents('plan', 'show', created.stdout.trim(), '--json')).stdout) as { projectPath: string | null; projectSource?: unknown };
    expect(shown).toMatchObject({ projectPath: null, projectSource: { git: repo.url, ref: 'main', baseCommit: null } });

    const id = created.stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    expect((await agents('plan', 'show', id)).stdout).toContain(`project:    ${repo.url} at main (${repo.head.slice(0, 12)})`);
    const noTarget = await agents('plan', 'apply', id);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain(`project: plan ${id}'s project is the git repository ${repo.url}: give --project DIR (a local clone) or --branch NAME`);
    const taken = await agents('plan', 'apply', id, '--branch', 'main');
    expect([taken.code, taken.stderr.trim()]).toEqual([2, `error: --branch: ${repo.url} has a branch main already; choose another name`]);
    const pushed = await agents('plan', 'apply', id, '--branch', 'agents/team');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(new RegExp(`^applied 1 file to branch agents/team of ${repo.url} \\(commit [0-9a-f]{12}\\)\n$`));
    expect(git(repo.bare, 'show', 'agents/team:out/1.txt')).toBe('1');

    // A second plan of the same repository, into the operator's clone.
    const second = (await agents('plan', 'create', file)).stdout.trim();
    expect((await agents('plan', 'run', second)).code).toBe(0);
    const mine = join(home, 'mine');
    git(home, 'clone', '-q', repo.url, mine);
    const applied = await agents('plan', 'apply', second, '--project', mine);
    expect(applied.code, applied.stderr).toBe(0);
    expect(readFileSync(join(mine, 'out/1.txt'), 'utf8')).toBe('1');

    writeFileSync(file, `name: team\nproject: { git: "http://git.example/r.git", ref: main }\ndefinitionOfDone:\n${step}\n`);
    const refused = await agents('plan', 'create', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('project.git: scheme http is not one of file, https, ssh (or user@host:path)');
  });

  it('writes a folder plan into another clone with --project, and refuses --branch for a folder plan with exit 2', async () => {
    const { home, agents } = inProcessCli();
    const repo = makeBareRepo(home);
    const project = join(home, 'project');
    git(home, 'clone', '-q', repo.url, project);
    const file = join(home, 'local.yaml');
    writeFileSync(file, `name: local\nproject: "${project}"\nautomationProfile: trusted\ndefinitionOfDone:\n${step}\n`);
    const id = (await agents('plan', 'create', file)).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);

    const branch = await agents('plan', 'apply', id, '--branch', 'agents/local');
    expect(branch.code).toBe(2);
    expect(branch.stderr.trim()).toContain(`--branch: plan ${id}'s project is a folder, not a git repository`);
    expect(branch.stderr.trim().split('\n')).toHaveLength(1);

    const other = join(home, 'other');
    git(home, 'clone', '-q', repo.url, other);
    const applied = await agents('plan', 'apply', id, '--project', other);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`applied 1 file into ${other}`);
    expect(readFileSync(join(other, 'out/1.txt'), 'utf8')).toBe('1');
    expect(existsSync(join(project, 'out/1.txt'))).toBe(false);
  });
});
