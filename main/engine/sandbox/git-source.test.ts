import { execFileSync } from 'node:child_process';
import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { refNameProblem } from '../../../shared/git-source';
import { EngineError } from '../errors';
import { classifyError } from '../run/error-recovery-service';
import { cleanupTempDirs, tempDir } from '../tools/test-support';
import { gitIn as git, makeBareRepo } from '../test-support/git-repos';
import { cloneGitSource, runGit } from './git-source';

afterEach(cleanupTempDirs);

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('cloneGitSource', () => {
  it('clones a file:// repository at a branch, shallow, with its .git, and records the base commit', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    const repo = makeBareRepo(base);
    const dir = path.join(base, 'sandbox');
    const { baseCommit } = await cloneGitSource({ git: repo.url, ref: 'main' }, dir);
    expect(baseCommit).toBe(repo.head);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('version two');
    expect(existsSync(path.join(dir, '.git'))).toBe(true);
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('clones at a tag, at a full commit id, at an abbreviated one, and at the default branch', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    const repo = makeBareRepo(base);
    const tag = await cloneGitSource({ git: repo.url, ref: 'v1' }, path.join(base, 'tag'));
    expect(tag.baseCommit).toBe(repo.first);
    expect(readFileSync(path.join(base, 'tag', 'README.md'), 'utf8')).toContain('version one');
    expect(existsSync(path.join(base, 'tag', 'notes.txt'))).toBe(false);
    expect((await cloneGitSource({ git: repo.url, ref: repo.first }, path.join(base, 'id'))).baseCommit).toBe(repo.first);
    expect((await cloneGitSource({ git: repo.url, ref: repo.first.slice(0, 10) }, path.join(base, 'short'))).baseCommit).toBe(repo.first);
    expect((await cloneGitSource({ git: repo.url, ref: null }, path.join(base, 'default'))).baseCommit).toBe(repo.head);
  });

  it('fails a URL that does not exist as project_unreachable, with a hint naming the URL, and leaves no folder', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    const url = pathToFileURL(path.join(base, 'missing.git')).href;
    const dir = path.join(base, 'sandbox');
    const error = await failure(cloneGitSource({ git: url, ref: 'main' }, dir));
    expect(error.category).toBe('project_unreachable');
    expect(classifyError(error)).toBe('project_unreachable');
    expect(error.message).toContain(`cannot clone ${url} at main`);
    expect(error.details.hint).toContain(url);
    expect(existsSync(dir)).toBe(false);
  });

  it('fails a ref the repository does not have, naming it', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    const repo = makeBareRepo(base);
    const error = await failure(cloneGitSource({ git: repo.url, ref: 'no-such-branch' }, path.join(base, 'sandbox')));
    expect(error.category).toBe('project_unreachable');
    expect(error.details.hint).toContain('the ref no-such-branch');
  });

  it('never shows the password of a URL, in the message, the hint or the clone', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    // Port 1 refuses at once: the failure comes from git, with the URL in its words.
    const error = await failure(cloneGitSource({ git: 'https://bob:s3cret@127.0.0.1:1/team/repo.git', ref: 'main' }, path.join(base, 'sandbox'), { timeoutMs: 20_000 }));
    expect(error.category).toBe('project_unreachable');
    expect(`${error.message} ${String(error.details.hint)} ${String(error.details.url)}`).not.toContain('s3cret');
    expect(error.details.hint).toContain('https://bob@127.0.0.1:1/team/repo.git');
  });

  it('fails at once where a server asks for a credential, instead of prompting for one', async () => {
    const server = createServer((_req, res) => res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const base = realpathSync(tempDir('agents-git-'));
      const url = `http://127.0.0.1:${port}/team/private.git`;
      const error = await failure(cloneGitSource({ git: url, ref: 'main' }, path.join(base, 'sandbox'), { timeoutMs: 20_000 }));
      expect(error.category).toBe('project_unreachable');
      expect(error.message).toMatch(/terminal prompts disabled|Authentication failed|could not read Username/);
    } finally {
      server.close();
    }
  });

  it('stops git at its timeout', async () => {
    const base = realpathSync(tempDir('agents-git-'));
    const started = Date.now();
    // A command that would wait forever on stdin (no prompt is possible: GIT_TERMINAL_PROMPT=0).
    const error = await runGit(['hash-object', '--stdin'], { cwd: base, timeoutMs: 300 }).then(
      () => null,
      (e: unknown) => e as Error & { timedOut?: boolean },
    );
    expect(error?.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('refNameProblem (shared/git-source.ts) follows git check-ref-format --allow-onelevel', () => {
  const names = ['main', 'v1.2.3', 'feature/x-y_z', 'release/2026.12', 'HEAD', 'a.b', '0123abcd', 'x..y', 'a/.b', 'x.lock', 'a//b', '/a', 'a/', 'a.', '@', 'a@{1}', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', 'tab\tx', 'ü-branch'];

  it('agrees with git on every name', () => {
    for (const name of names) {
      let gitSays = true;
      try {
        execFileSync('git', ['check-ref-format', '--allow-onelevel', name], { stdio: 'ignore' });
      } catch {
        gitSays = false;
      }
      expect([name, refNameProblem(name) === null]).toEqual([name, gitSays]);
    }
  });
});
