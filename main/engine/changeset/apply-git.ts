import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ValidationError } from '../../../shared/errors';
import { type PlanGitSource, refNameProblem } from '../../../shared/git-source';
import { redactUrl } from '../../../shared/redact';
import { cloneGitSource, GitCommandError, runGit, unreachable } from '../sandbox/git-source';
import { type AppliedRecord, applyReviewed, type ReviewApplyResult, type Reviewed, type ReviewSelection } from './review';

const SCP_LIKE = /^([A-Za-z0-9._-]+@[A-Za-z0-9.-]+):(?!\/\/)(.*)$/;

/** The same repository whatever the spelling: no trailing slash or `.git`, no credentials, `file://` as its path, scp-like as ssh://. */
export function sameRepository(a: string, b: string): boolean {
  const norm = (url: string) => {
    let u = redactUrl(url.trim());
    if (u.startsWith('file://')) u = decodeURIComponent(u.slice('file://'.length));
    const scp = SCP_LIKE.exec(u);
    if (scp) u = `ssh://${scp[1]}/${scp[2].replace(/^\/+/, '')}`;
    return u.replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  };
  return norm(a) === norm(b);
}

/**
 * Checks that `dir` is a git clone of the plan's repository: one of its remotes has the plan's URL,
 * or it holds the plan's base commit (a clone made from a mirror). Bad input otherwise, in one line.
 */
async function checkCloneOf(dir: string, source: PlanGitSource): Promise<void> {
  const field = '--project';
  const top = await runGit(['rev-parse', '--show-toplevel'], { cwd: dir, timeoutMs: 30_000 }).catch(() => null);
  if (top === null) throw new ValidationError(field, `${dir} is not a git clone of ${redactUrl(source.git)}`);
  if ((await realpath(top.trim())) !== (await realpath(dir))) throw new ValidationError(field, `${dir} is inside a clone; give its top folder ${top.trim()}`);
  const remotes = await runGit(['config', '--get-regexp', '^remote\\..*\\.url$'], { cwd: dir, timeoutMs: 30_000 }).catch(() => '');
  if (remotes.split('\n').some((line) => line.includes(' ') && sameRepository(line.slice(line.indexOf(' ') + 1), source.git))) return;
  if (source.baseCommit) {
    const has = await runGit(['cat-file', '-e', `${source.baseCommit}^{commit}`], { cwd: dir, timeoutMs: 30_000 }).then(
      () => true,
      () => false,
    );
    if (has) return;
  }
  throw new ValidationError(field, `${dir} is not a clone of ${redactUrl(source.git)}: no remote has that URL${source.baseCommit ? ` and it lacks commit ${source.baseCommit}` : ''}`);
}

/**
 * Writes a reviewed changeset into `dir`, a local clone of the plan's repository rather than the
 * plan's own project: the same apply, with its conflict check against the recorded base.
 */
export async function applyToClone(
  dir: string,
  source: PlanGitSource | null,
  reviewed: readonly Reviewed[],
  applied: readonly AppliedRecord[],
  selection: ReviewSelection = {},
): Promise<ReviewApplyResult> {
  if (source) await checkCloneOf(dir, source);
  return applyReviewed(dir, reviewed, applied, selection);
}

export interface Author {
  name: string;
  email: string;
}

/** The operator's name from the settings if given, else the OS user; an address at this host. */
export function operatorAuthor(name?: string | null): Author {
  let user = 'agents';
  try {
    user = userInfo().username || user;
  } catch {
    // No passwd entry (a container): the default stands.
  }
  return { name: name?.trim() || user, email: `${user}@${hostname() || 'localhost'}` };
}

export interface BranchApplyResult extends ReviewApplyResult {
  branch: string;
  /** The pushed commit; null when nothing was pushed (a conflict). */
  commit: string | null;
  /** The URL pushed to, without a password. */
  url: string;
}

/** Refuses a branch name git would not take, or one the remote has already: bad input, one line. */
async function checkNewBranch(source: Pick<PlanGitSource, 'git' | 'ref'>, branch: string, timeoutMs?: number): Promise<void> {
  const problem = refNameProblem(branch);
  if (problem) throw new ValidationError('--branch', `"${branch}" ${problem}`);
  const heads = await runGit(['ls-remote', '--heads', '--', source.git, `refs/heads/${branch}`], { timeoutMs }).catch((error: unknown) => {
    throw unreachable(source, error, 'reach');
  });
  if (heads.trim() !== '') throw new ValidationError('--branch', `${redactUrl(source.git)} has a branch ${branch} already; choose another name`);
}

/**
 * Commits a reviewed changeset to a new branch `branch` and pushes it: a temporary clone at the
 * plan's base commit, the same apply as into a project (so a base that is not the sandbox's shows
 * as conflicts, and nothing is pushed), one commit, then a push that creates the branch only if it
 * still does not exist.
 */
export async function applyToBranch(
  source: PlanGitSource,
  branch: string,
  reviewed: readonly Reviewed[],
  options: { message: string; author: Author; selection?: ReviewSelection; timeoutMs?: number },
): Promise<BranchApplyResult> {
  const url = redactUrl(source.git);
  if (!source.baseCommit) throw new ValidationError('--branch', `the plan has no base commit of ${url} yet: it was never cloned by a worker`);
  await checkNewBranch(source, branch, options.timeoutMs);
  const parent = await mkdtemp(path.join(tmpdir(), 'agents-branch-'));
  try {
    const dir = path.join(parent, 'clone');
    await cloneGitSource({ git: source.git, ref: source.baseCommit }, dir, { timeoutMs: options.timeoutMs });
    // A branch holds every reviewed change, whatever was applied elsewhere before.
    const result = await applyReviewed(dir, reviewed, [], options.selection ?? {});
    if (result.conflicts.length > 0 && !options.selection?.force) return { ...result, branch, commit: null, url };
    const { name, email } = options.author;
    const env = { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
    const git = (args: string[]) => runGit(args, { cwd: dir, env, timeoutMs: options.timeoutMs });
    await git(['add', '--all']);
    // No hooks of the operator's run on this throwaway clone.
    await git(['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgSign=false', 'commit', '--quiet', '--allow-empty', '-m', options.message]);
    const commit = (await git(['rev-parse', 'HEAD'])).trim();
    try {
      // An empty lease: the push fails if someone created the branch since the check.
      await git(['push', '--quiet', `--force-with-lease=refs/heads/${branch}:`, '--', source.git, `HEAD:refs/heads/${branch}`]);
    } catch (error) {
      if (error instanceof GitCommandError && /stale info|already exists|rejected/i.test(error.stderr)) {
        throw new ValidationError('--branch', `${url} has a branch ${branch} already; choose another name`);
      }
      throw unreachable(source, error, 'push to');
    }
    return { ...result, branch, commit, url };
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}
