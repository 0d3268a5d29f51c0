import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Confinement } from '../../../shared/tool-calls';

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
  /** Host folders the command may read besides the system's (an MCP server's installation), bound read-only where they lie. */
  readOnlyPaths?: readonly string[];
  /** Folders writable besides the sandbox (a long-lived agent's own home), bound where they lie. */
  writablePaths?: readonly string[];
  /** Files or folders bound read-only at a place of their own, after the system's (a generated /etc/hosts). */
  binds?: readonly ReadOnlyMount[];
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

/** Whether `child` is `parent` or inside it, as written. */
export function isUnder(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A read-only bind of the layout: a host folder and where the command sees it. */
export interface ReadOnlyMount {
  source: string;
  dest: string;
}

/** An entry under a read-only mount that the command must not read, by its path inside and on the host. */
export interface HiddenEntry {
  source: string;
  dest: string;
  dir: boolean;
}

/** The uid and gid the command runs as inside its user namespace: nobody/nogroup. */
export const NOBODY = 65534;

export interface BwrapLayoutOptions {
  nodeDir?: string;
  /** Entries to cover with an unreadable empty file or folder (root-only files, when the engine runs as root). */
  hidden?: readonly HiddenEntry[];
}

/** The system folders and the Node folder, as bound read-only; merged-/usr links are left to the caller. */
export function readOnlyMounts(nodeDir: string = nodeFolder()): ReadOnlyMount[] {
  const mounts: ReadOnlyMount[] = [];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir) || lstatSync(dir).isSymbolicLink()) continue; // a dangling link counts as missing too
    mounts.push({ source: dir, dest: dir });
  }
  // At a folder of its own: bound where it lies, a Node installed in the home folder (or /tmp) would
  // show that folder's path inside.
  if (!mounts.some((m) => isUnder(nodeDir, m.source)) && existsSync(nodeDir)) mounts.push({ source: nodeDir, dest: NODE_MOUNT });
  return mounts;
}

/**
 * bubblewrap arguments for the layout: a fresh root where only the system folders (read-only), a
 * private /dev, /proc and /tmp, and the sandbox (read-write) exist. Every namespace is new (the
 * network too, unless allowed), so a background or setsid child dies with the call's PID
 * namespace. All capabilities are dropped: as root, a capability would let the command write to
 * the read-only folders bwrap makes for the sandbox's ancestors. The command runs as nobody in its
 * own user namespace; that namespace still maps nobody to the engine's user on the host, so as root
 * the `hidden` entries (what only root may read) are covered.
 */
export function bwrapArgs(request: ConfineRequest, options: BwrapLayoutOptions = {}): string[] {
  const root = path.resolve(request.sandboxRoot);
  const args = ['--unshare-all', '--unshare-user', '--uid', String(NOBODY), '--gid', String(NOBODY)];
  args.push(...(request.allowNetwork ? ['--share-net'] : []), '--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  for (const dir of SYSTEM_DIRS) {
    // A merged-/usr link (/bin -> usr/bin) stays a link into the read-only /usr.
    if (existsSync(dir) && lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
  }
  const mounts = readOnlyMounts(options.nodeDir ?? nodeFolder());
  for (const mount of mounts) args.push('--ro-bind', mount.source, mount.dest);
  if (options.hidden && options.hidden.length > 0) args.push(...hidingArgs(options.hidden));
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // After the private /tmp, as what follows: a folder under /tmp (a checkout there) would be hidden by it.
  // The writable folders' ancestors exist only as empty read-only folders, so `..` cannot create
  // anything beside them, not even in the private /tmp.
  const writable = [root, ...(request.writablePaths ?? []).map((dir) => path.resolve(dir))];
  const ancestors: string[] = [];
  for (const folder of writable) {
    const own: string[] = [];
    for (let dir = path.dirname(folder); dir !== '/' && dir !== '/tmp'; dir = path.dirname(dir)) own.unshift(dir);
    for (const dir of own) if (!ancestors.includes(dir) && !writable.some((w) => isUnder(dir, w))) ancestors.push(dir);
  }
  for (const dir of ancestors) {
    if (!mounts.some((m) => isUnder(dir, m.dest))) args.push('--perms', '0555', '--dir', dir);
  }
  // After the ancestors: a folder to read beside the sandbox would otherwise make them as writable folders.
  for (const extra of request.readOnlyPaths ?? []) {
    if (!mounts.some((m) => isUnder(extra, m.dest))) args.push('--ro-bind', extra, extra);
  }
  for (const bind of request.binds ?? []) args.push('--ro-bind', bind.source, bind.dest);
  for (const folder of writable) args.push('--bind', folder, folder);
  args.push('--chdir', root, '--remount-ro', '/');
  args.push(SH, '-c', request.command);
  return args;
}

/** What "others" may not read or enter; `-mindepth 1` keeps the mount itself, NUL-separated paths survive any name. */
const FIND_UNREADABLE = ['-mindepth', '1', '(', '-type', 'd', '(', '!', '-perm', '-o=r', '-o', '!', '-perm', '-o=x', ')', '-prune', '-printf', 'd%p\\0', ')', '-o', '(', '-type', 'f', '!', '-perm', '-o=r', '-printf', 'f%p\\0', ')'];

/**
 * Every folder and regular file under the mounts that "others" may not read (a folder: read or
 * enter), found by `find` in a subprocess so the walk (about a second over /usr when the disk
 * cache is warm) stays off the event loop. Below a hidden folder nothing is listed: it is covered
 * whole.
 */
export async function findUnreadable(mounts: readonly ReadOnlyMount[], find = 'find'): Promise<HiddenEntry[]> {
  const found: HiddenEntry[] = [];
  for (const mount of mounts) {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(find, [mount.source, ...FIND_UNREADABLE], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } }, (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error(`${find} is not installed`));
        // An entry removed during the walk ends in a non-zero status, but what was printed holds.
        // Anything else (BusyBox find knows no -printf and prints nothing) would hide nothing.
        const other = stderr.split('\n').find((line) => line.trim() !== '' && !line.includes('No such file or directory'));
        if (other !== undefined || (error && stdout === '')) {
          const status = error ? `exit status ${String((error as { code?: unknown }).code ?? (error as { signal?: unknown }).signal)}` : 'exit status 0';
          return reject(new Error(`${find} failed on ${mount.source}: ${other?.trim() ?? status}`));
        }
        resolve(stdout);
      });
    });
    for (const line of out.split('\0')) {
      if (!line) continue;
      const source = line.slice(1);
      found.push({ source, dir: line[0] === 'd', dest: path.join(mount.dest, path.relative(mount.source, source)) });
    }
  }
  return found;
}

let covers: { file: string; dir: string } | undefined;

/**
 * An empty file and an empty folder, mode 0, in a private temp folder made once per process (made
 * again if something removed it): bound read-only over a hidden entry, they deny reading, listing
 * and chmod alike, as the real entry would deny nobody.
 */
function hidingCovers(): { file: string; dir: string } {
  if (covers && existsSync(covers.file) && existsSync(covers.dir)) return covers;
  const home = mkdtempSync(path.join(tmpdir(), 'agents-hidden-'));
  const made = { file: path.join(home, 'file'), dir: path.join(home, 'dir') };
  writeFileSync(made.file, '', { mode: 0 });
  mkdirSync(made.dir, { mode: 0 });
  chmodSync(made.file, 0);
  chmodSync(made.dir, 0);
  if (!covers) process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  covers = made;
  return made;
}

/** Binds covering the hidden entries that are still what they were (bwrap fails on a vanished mount point). */
function hidingArgs(hidden: readonly HiddenEntry[]): string[] {
  const cover = hidingCovers();
  const args: string[] = [];
  for (const entry of hidden) {
    const stats = lstatSync(entry.source, { throwIfNoEntry: false });
    if (!stats || stats.isDirectory() !== entry.dir || (!entry.dir && !stats.isFile())) continue;
    args.push('--ro-bind', entry.dir ? cover.dir : cover.file, entry.dest);
  }
  return args;
}

/** bubblewrap with this layout; `hidden` comes from the probe (empty unless the engine runs as root). */
export function bwrapConfiner(options: BwrapLayoutOptions = {}): Confiner {
  return {
    kind: 'bwrap-nobody',
    launch: (request) => ({ file: BWRAP, args: bwrapArgs(request, options) }),
  };
}

/** Seatbelt rules in SBPL: read everything but the user's home, write only the sandbox and /dev/null, no network unless allowed. */
export function seatbeltProfile(allowNetwork: boolean, readOnlyPaths: readonly string[] = []): string {
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork signal sysctl-read mach-lookup)',
    '(allow file-read*)',
    '(deny file-read* (subpath (param "HOME")))',
    '(allow file-read* file-write* (subpath (param "SANDBOX")))',
    '(allow file-write* (literal "/dev/null"))',
    ...readOnlyPaths.map((p) => `(allow file-read* (subpath ${JSON.stringify(p)}))`),
    ...(allowNetwork ? ['(allow network*)'] : []),
  ].join('\n');
}

export const sandboxExecConfiner: Confiner = {
  kind: 'sandbox-exec',
  launch: (request) => ({
    file: SANDBOX_EXEC,
    args: ['-p', seatbeltProfile(request.allowNetwork, request.readOnlyPaths), '-D', `SANDBOX=${realpathOr(request.sandboxRoot)}`, '-D', `HOME=${realpathOr(process.env.HOME ?? '/Users')}`, SH, '-c', request.command],
  }),
};

export const unconfined: Confiner = {
  kind: 'none',
  launch: (request) => ({ file: SH, args: ['-c', request.command] }),
};

export interface BwrapProbeOptions {
  bwrap?: string;
  nodeDir?: string;
  /** Hide what only root may read; default: when the engine runs as root (as in CI and containers). */
  hideRootOnly?: boolean;
  /** The find that walks for them (a stand-in in tests; PATH is /usr/bin:/bin). */
  find?: string;
}

/** Runs a layout once on a throwaway directory: bwrap may be installed yet refused user namespaces. */
async function tryLayout(bwrap: string, layout: BwrapLayoutOptions): Promise<{ ok: true } | { ok: false; reason: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agents-confine-probe-'));
  try {
    const args = bwrapArgs({ command: 'exit 0', sandboxRoot: dir, allowNetwork: false }, layout);
    const outcome = await new Promise<{ code: number | null; error?: Error; stderr: string }>((resolve) => {
      let stderr = '';
      const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
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
    return { ok: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks that bwrap works while (as root) the walk finds what to hide; then checks the layout with
 * its covers too, so a cover that cannot be bound refuses here rather than at every call.
 */
async function probeBwrap(options: BwrapProbeOptions): Promise<ConfinementProbe> {
  const bwrap = options.bwrap ?? BWRAP;
  const nodeDir = options.nodeDir ?? nodeFolder();
  const hide = options.hideRootOnly ?? process.geteuid?.() === 0;
  const walk = hide ? findUnreadable(readOnlyMounts(nodeDir), options.find) : Promise.resolve([]);
  walk.catch(() => undefined); // awaited below, unless bwrap fails first
  const plain = await tryLayout(bwrap, { nodeDir });
  if (!plain.ok) return plain;
  let hidden: HiddenEntry[];
  try {
    hidden = await walk;
  } catch (error) {
    return { ok: false, reason: `cannot list the files only root may read, to hide them (${(error as Error).message})` };
  }
  const layout: BwrapLayoutOptions = { nodeDir, hidden };
  if (hidden.length > 0) {
    const covered = await tryLayout(bwrap, layout);
    if (!covered.ok) return covered;
  }
  return { ok: true, confiner: bwrapConfiner(layout) };
}

/** Finds the platform's confinement, without caching; `detectConfinement` caches it. */
export async function probeConfinement(platform: NodeJS.Platform = process.platform, options: BwrapProbeOptions = {}): Promise<ConfinementProbe> {
  if (platform === 'linux') return probeBwrap(options);
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
