import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import type { PlanGitSource } from '../../../shared/git-source';
import { EngineError } from '../errors';
import { cloneGitSource } from '../sandbox/git-source';
import { gitIn as git, makeBareRepo } from '../test-support/git-repos';
import { cleanupTempDirs, harness, tempDir } from '../tools/test-support';
import { applyToBranch, applyToClone, operatorAuthor, sameRepository } from './apply-git';
import { reviewNet } from './review';

afterEach(cleanupTempDirs);

/** A plan's sandbox cloned from a file:// repository, and the changes real tools made in it. */
async function planOnRepo() {
  const base = realpathSync(tempDir('agents-apply-git-'));
  const repo = makeBareRepo(base);
  const sandbox = path.join(base, 'sandbox');
  const { baseCommit } = await cloneGitSource({ git: repo.url, ref: 'main' }, sandbox);
  const h = harness(sandbox);
  await h.call('file.edit', { path: 'README.md', find: 'version two', replace: 'version three' });
  await h.call('file.write', { path: 'src/new.ts', content: 'export const added = true;\n' });
  await h.call('file.delete', { path: 'notes.txt' });
  const source: PlanGitSource = { git: repo.url, ref: 'main', baseCommit };
  return { base, repo, source, reviewed: reviewNet(h.entries, []) };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('applyToClone', () => {
  it("writes the reviewed changes into another clone of the plan's repository", async () => {
    const { base, repo, source, reviewed } = await planOnRepo();
    const clone = path.join(base, 'operator');
    git(base, 'clone', '-q', repo.url, clone);
    const result = await applyToClone(clone, source, reviewed, []);
    expect(result.conflicts).toEqual([]);
    expect(result.applied).toEqual(['README.md', 'notes.txt', 'src/new.ts']);
    expect(readFileSync(path.join(clone, 'README.md'), 'utf8')).toContain('version three');
    expect(existsSync(path.join(clone, 'notes.txt'))).toBe(false);
    expect(git(clone, 'status', '--porcelain').split('\n')).toEqual(['M README.md', ' D notes.txt', '?? src/']);
  });

  it('detects a conflict against the recorded base and writes nothing', async () => {
    const { base, repo, source, reviewed } = await planOnRepo();
    const clone = path.join(base, 'operator');
    git(base, 'clone', '-q', repo.url, clone);
    writeFileSync(path.join(clone, 'README.md'), '# Demo\n\nchanged by the operator\n');
    const result = await applyToClone(clone, source, reviewed, []);
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['README.md', "the file was modified in the project since the plan's sandbox was made"]]);
    expect(result.applied).toEqual([]);
    expect(existsSync(path.join(clone, 'src/new.ts'))).toBe(false);
    expect(existsSync(path.join(clone, 'notes.txt'))).toBe(true);
  });

  it('takes a clone with another remote URL when it holds the base commit, and refuses a folder that is not a clone', async () => {
    const { base, repo, source, reviewed } = await planOnRepo();
    const mirror = path.join(base, 'mirror');
    git(base, 'clone', '-q', repo.bare, mirror);
    git(mirror, 'remote', 'set-url', 'origin', 'https://example.invalid/elsewhere.git');
    expect((await applyToClone(mirror, source, reviewed, [])).applied).toHaveLength(3);

    const plain = path.join(base, 'plain');
    mkdirSync(plain);
    const notClone = await rejection(applyToClone(plain, source, reviewed, []));
    expect(notClone).toBeInstanceOf(ValidationError);
    expect(notClone.message).toBe(`--project: ${plain} is not a git clone of ${repo.url}`);

    const other = path.join(base, 'other');
    git(base, 'init', '-q', other);
    const stranger = await rejection(applyToClone(other, source, reviewed, []));
    expect(stranger.message).toContain(`${other} is not a clone of ${repo.url}: no remote has that URL and it lacks commit ${source.baseCommit}`);
  });
});

describe('sameRepository', () => {
  it('matches one repository however its URL is spelled, and no other', () => {
    expect(sameRepository('git@github.com:team/demo.git', 'ssh://git@github.com/team/demo')).toBe(true);
    expect(sameRepository('https://host/team/demo.git/', 'https://host/team/demo')).toBe(true);
    expect(sameRepository('file:///srv/git/demo.git', '/srv/git/demo.git')).toBe(true);
    expect(sameRepository('https://host/team/demo.git', 'https://host/team/other.git')).toBe(false);
  });
});

describe('applyToBranch', () => {
  it('commits the reviewed changes on a new branch at the base commit and pushes it', async () => {
    const { repo, source, reviewed } = await planOnRepo();
    const author = operatorAuthor('Ada Operator');
    const result = await applyToBranch(source, 'agents/plan-1', reviewed, { message: 'Plan 1: say version three', author });
    expect(result.conflicts).toEqual([]);
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(repo.bare, 'ls-remote', '--heads', repo.bare, 'refs/heads/agents/plan-1')).toBe(`${result.commit}\trefs/heads/agents/plan-1`);
    expect(git(repo.bare, 'show', 'agents/plan-1:README.md')).toContain('version three');
    expect(git(repo.bare, 'show', 'agents/plan-1:src/new.ts')).toBe('export const added = true;');
    expect(git(repo.bare, 'log', '-1', '--format=%an|%s|%P', 'agents/plan-1')).toBe(`Ada Operator|Plan 1: say version three|${source.baseCommit}`);
    expect(git(repo.bare, 'ls-tree', '--name-only', 'agents/plan-1')).not.toContain('notes.txt');
    // main is untouched.
    expect(git(repo.bare, 'rev-parse', 'main')).toBe(repo.head);
  });

  it('refuses a branch the remote has already, and a name git would not take, in one line', async () => {
    const { repo, source, reviewed } = await planOnRepo();
    const options = { message: 'Plan 1', author: operatorAuthor() };
    const taken = await rejection(applyToBranch(source, 'main', reviewed, options));
    expect(taken).toBeInstanceOf(ValidationError);
    expect(taken.message).toBe(`--branch: ${repo.url} has a branch main already; choose another name`);
    const bad = await rejection(applyToBranch(source, 'two..dots', reviewed, options));
    expect(bad.message).toBe('--branch: "two..dots" must not contain ".." or "@{"');
    expect(git(repo.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/main');
  });

  it('fails a repository that is gone as project_unreachable, naming its URL', async () => {
    const { base, source, reviewed } = await planOnRepo();
    const gone = { ...source, git: `file://${path.join(base, 'gone.git')}` };
    const error = await rejection(applyToBranch(gone, 'agents/plan-1', reviewed, { message: 'Plan 1', author: operatorAuthor() }));
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).category).toBe('project_unreachable');
    expect(String((error as EngineError).details.hint)).toContain(gone.git);
  });
});
