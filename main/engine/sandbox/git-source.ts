import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import type { PlanGitSource } from '../../../shared/git-source';
import { redactText, redactUrl } from '../../../shared/redact';
import { EngineError } from '../errors';

/** How long one git command may take before it is killed: a clone of a large repository over a slow link. */
const GIT_TIMEOUT_MS = 5 * 60_000;

export interface GitOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Extra environment (author and committer names). */
  env?: Record<string, string>;
}

/** Why a git command failed: its exit code, or that it was killed at the timeout, and its stderr (credentials redacted). */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly timedOut: boolean,
  ) {
    super(timedOut ? `git ${args[0]} took too long and was stopped` : firstLine(stderr) || `git ${args[0]} failed`);
    this.name = 'GitCommandError';
  }
}

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'))
    .at(-1) ?? '';

/**
 * Runs git as a subprocess that never asks: no terminal prompt, no askpass program, and in a
 * session of its own (no controlling terminal, where ssh would ask for a passphrase or a host key),
 * so a missing credential is a failure now rather than a worker hung on a prompt. The operator's
 * own ssh settings (keys, agent, core.sshCommand) still apply.
 */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
    LC_ALL: 'C',
    ...options.env,
  };
  // execFile passes `detached` on to spawn, though its options type leaves it out.
  const spawnOptions = { cwd: options.cwd, env, detached: true, windowsHide: true, timeout: options.timeoutMs ?? GIT_TIMEOUT_MS, killSignal: 'SIGKILL' as const, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' as const };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      spawnOptions,
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const timedOut = error.killed === true || (error as { signal?: string }).signal === 'SIGKILL';
        reject(new GitCommandError(args, redactText(stderr || error.message), timedOut));
      },
    );
  });
}

/** A full commit id: fetched as an object, not as a branch or tag. */
const FULL_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
/** What might be an abbreviated commit id: worth a full clone when no branch or tag has the name. */
const MAYBE_ID = /^[0-9a-f]{7,64}$/;

/** The failure of a git project, as the plan records it: category project_unreachable, a hint naming the URL. */
export function unreachable(source: Pick<PlanGitSource, 'git' | 'ref'>, cause: unknown, what = 'clone'): EngineError {
  const url = redactUrl(source.git);
  const at = source.ref ? ` at ${source.ref}` : '';
  const why = cause instanceof Error ? redactText(cause.message) : String(cause);
  const timedOut = cause instanceof GitCommandError && cause.timedOut;
  return new EngineError(`cannot ${what} ${url}${at}: ${why}`, 'project_unreachable', {
    url,
    ref: source.ref,
    hint: timedOut
      ? `git gave up on ${url} after its time limit. Check that this machine reaches it quickly enough, then retry.`
      : `Check that ${url} is a git repository this machine can reach (network, SSH key or credential helper) and that it has ${source.ref ? `the ref ${source.ref}` : 'a default branch'}, then retry.`,
  });
}

export interface ClonedSource {
  /** The commit checked out: the plan's recorded base. */
  baseCommit: string;
}

/**
 * Clones `source` at its ref into `dir` (which must not exist): shallow where git allows it (a
 * branch or tag with `--depth 1 --branch`, a full commit id with a depth-1 fetch), else a full
 * clone and a checkout. The result is a working tree with its `.git`, the shape of a sandbox
 * copied from a project folder. The remote kept in `.git/config` has no password: the sandbox's
 * shell must not read one there.
 */
export async function cloneGitSource(source: Pick<PlanGitSource, 'git' | 'ref'>, dir: string, options: { timeoutMs?: number } = {}): Promise<ClonedSource> {
  const git = (args: string[], cwd?: string) => runGit(args, { cwd, timeoutMs: options.timeoutMs });
  const ref = source.ref ?? null;
  try {
    if (ref !== null && FULL_ID.test(ref)) {
      await git(['init', '--quiet', '--', dir]);
      await git(['remote', 'add', 'origin', source.git], dir);
      try {
        await git(['fetch', '--quiet', '--depth', '1', 'origin', ref], dir);
        await git(['checkout', '--quiet', '--detach', 'FETCH_HEAD'], dir);
      } catch {
        // A server that fetches only advertised refs: everything, then the commit.
        await git(['fetch', '--quiet', 'origin'], dir);
        await git(['checkout', '--quiet', '--detach', `${ref}^{commit}`], dir);
      }
    } else {
      try {
        await git(['clone', '--quiet', '--depth', '1', '--single-branch', ...(ref ? ['--branch', ref] : []), '--', source.git, dir]);
      } catch (error) {
        if (ref === null || !MAYBE_ID.test(ref)) throw error;
        await rm(dir, { recursive: true, force: true });
        await git(['clone', '--quiet', '--no-checkout', '--', source.git, dir]);
        await git(['checkout', '--quiet', '--detach', `${ref}^{commit}`], dir);
      }
    }
    const url = redactUrl(source.git);
    if (url !== source.git) await git(['remote', 'set-url', 'origin', url], dir);
    return { baseCommit: (await git(['rev-parse', 'HEAD'], dir)).trim() };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw unreachable(source, error);
  }
}
