import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Confinement } from '../../../shared/domain';

/** How a command is started: the program and its arguments, wrapped or not. */
export interface LaunchSpec {
  file: string;
  args: string[];
}

export interface ConfineRequest {
  command: string;
  /** The sandbox directory: the only writable path, and the working directory. */
  sandboxRoot: string;
  allowNetwork: boolean;
}

/** A way to run a shell command; `kind` is what each tool invocation records. */
export interface Confiner {
  kind: Confinement;
  launch(request: ConfineRequest): LaunchSpec;
}

/** What detection found: a confiner, or why there is none. */
export type ConfinementProbe = { ok: true; confiner: Confiner } | { ok: false; reason: string };

const SH = '/bin/sh';
export const BWRAP = 'bwrap';
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** Read-only system folders the command may need; missing ones are skipped, symlinks (merged /usr) kept as links. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** Where bubblewrap shows the folder of the Node that runs us. */
export const NODE_MOUNT = '/node';

/**
 * The folder of the Node that runs us, so `node` works inside. When it is an install's `bin`, the
 * install prefix is bound instead, so `npm` next to it finds its own modules.
 */
export function nodeFolder(execPath: string = process.execPath): string {
  const dir = path.dirname(realpathOr(execPath));
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function isUnder(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * bubblewrap arguments for the layout: a fresh root where only the system folders (read-only), a
 * private /dev, /proc and /tmp, and the sandbox (read-write) exist. Every namespace is new (the
 * network too, unless allowed), so a background or setsid child dies with the call's PID
 * namespace. All capabilities are dropped: as root, a capability would let the command write to
 * the read-only folders bwrap makes for the sandbox's ancestors.
 */
export function bwrapArgs(request: ConfineRequest, options: { nodeDir?: string } = {}): string[] {
  const root = path.resolve(request.sandboxRoot);
  const args = ['--unshare-all', ...(request.allowNetwork ? ['--share-net'] : []), '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  const bound: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue; // a dangling link counts as missing too
    if (lstatSync(dir).isSymbolicLink()) {
      // A merged-/usr link (/bin -> usr/bin) stays a link into the read-only /usr.
      args.push('--symlink', readlinkSync(dir), dir);
      continue;
    }
    args.push('--ro-bind', dir, dir);
    bound.push(dir);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // At a folder of its own: bound where it lies, a Node installed in the home folder (or /tmp) would
  // show that folder's path inside.
  const nodeDir = options.nodeDir ?? nodeFolder();
  if (!bound.some((dir) => isUnder(nodeDir, dir)) && existsSync(nodeDir)) args.push('--ro-bind', nodeDir, NODE_MOUNT);
  // The sandbox's ancestors exist only as empty read-only folders, so `..` cannot create anything
  // beside the sandbox, not even in the private /tmp.
  const ancestors: string[] = [];
  for (let dir = path.dirname(root); dir !== '/' && dir !== '/tmp'; dir = path.dirname(dir)) ancestors.unshift(dir);
  for (const dir of ancestors) {
    if (!bound.some((b) => isUnder(dir, b))) args.push('--perms', '0555', '--dir', dir);
  }
  args.push('--bind', root, root, '--chdir', root, '--remount-ro', '/');
  args.push(SH, '-c', request.command);
  return args;
}

export const bwrapConfiner: Confiner = {
  kind: 'bwrap',
  launch: (request) => ({ file: BWRAP, args: bwrapArgs(request) }),
};

/** Seatbelt rules in SBPL: read everything but the user's home, write only the sandbox and /dev/null, no network unless allowed. */
export function seatbeltProfile(allowNetwork: boolean): string {
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork signal sysctl-read mach-lookup)',
    '(allow file-read*)',
    '(deny file-read* (subpath (param "HOME")))',
    '(allow file-read* file-write* (subpath (param "SANDBOX")))',
    '(allow file-write* (literal "/dev/null"))',
    ...(allowNetwork ? ['(allow network*)'] : []),
  ].join('\n');
}

export const sandboxExecConfiner: Confiner = {
  kind: 'sandbox-exec',
  launch: (request) => ({
    file: SANDBOX_EXEC,
    args: ['-p', seatbeltProfile(request.allowNetwork), '-D', `SANDBOX=${realpathOr(request.sandboxRoot)}`, '-D', `HOME=${realpathOr(process.env.HOME ?? '/Users')}`, SH, '-c', request.command],
  }),
};

export const unconfined: Confiner = {
  kind: 'none',
  launch: (request) => ({ file: SH, args: ['-c', request.command] }),
};

/** Runs the confiner's layout once on a throwaway directory; bwrap may be installed yet refused user namespaces. */
async function probeBwrap(bwrap: string): Promise<ConfinementProbe> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agents-confine-probe-'));
  try {
    const args = bwrapArgs({ command: 'exit 0', sandboxRoot: dir, allowNetwork: false });
    const file = bwrap;
    const outcome = await new Promise<{ code: number | null; error?: Error; stderr: string }>((resolve) => {
      let stderr = '';
      const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error) => resolve({ code: null, error, stderr }));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    if (outcome.error) {
      const missing = (outcome.error as NodeJS.ErrnoException).code === 'ENOENT';
      return { ok: false, reason: missing ? 'bubblewrap (bwrap) is not installed' : `bwrap could not start: ${outcome.error.message}` };
    }
    if (outcome.code !== 0) {
      const line = outcome.stderr.trim().split('\n').at(-1) ?? '';
      return { ok: false, reason: `bwrap does not work here (${line || `exit status ${outcome.code}`}); unprivileged user namespaces may be disabled` };
    }
    return { ok: true, confiner: bwrapConfiner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Finds the platform's confinement, without caching; `detectConfinement` caches it. */
export async function probeConfinement(platform: NodeJS.Platform = process.platform, options: { bwrap?: string } = {}): Promise<ConfinementProbe> {
  if (platform === 'linux') return probeBwrap(options.bwrap ?? BWRAP);
  if (platform === 'darwin') {
    return existsSync(SANDBOX_EXEC) ? { ok: true, confiner: sandboxExecConfiner } : { ok: false, reason: `${SANDBOX_EXEC} is missing` };
  }
  return { ok: false, reason: `no confinement is implemented for ${platform}` };
}

let detected: Promise<ConfinementProbe> | undefined;

/** The platform's confinement, found once per process. */
export function detectConfinement(): Promise<ConfinementProbe> {
  detected ??= probeConfinement();
  return detected;
}
