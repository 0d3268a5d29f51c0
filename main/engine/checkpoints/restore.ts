import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RewindOp } from './checkpoint-store';
import { type Manifest, type ManifestEntry, sameEntry, scanManifest } from './manifest';
import { type ObjectStore, temporaryName } from './object-store';

export interface RestorePlan {
  ops: RewindOp[];
  /** Files (not folders) whose content, mode or kind changes, and what happens to each. */
  files: { path: string; operation: 'create' | 'modify' | 'delete' }[];
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The operations that turn what `root` holds now into `target`: the whole sandbox is looked at
 * (files whose stat matches the target are not read), so changes no capture saw are undone too.
 */
export async function planRestore(root: string, target: Manifest): Promise<RestorePlan> {
  // Only compared, never stored: a file the target does not have goes, unread.
  const current = await scanManifest(root, null, target, { onlyKnown: true });
  const removes: string[] = [];
  const creates: [string, ManifestEntry][] = [];
  const files: RestorePlan['files'] = [];
  for (const [rel, now] of current) {
    const want = target.get(rel);
    if (sameEntry(now, want)) continue;
    // A file or link is replaced by a rename; a folder in the way of one (or one in a folder's way) goes first.
    if (!want || (want.kind === 'dir') !== (now.kind === 'dir')) removes.push(rel);
    if (want) creates.push([rel, want]);
    if (now.kind !== 'dir' || (want && want.kind !== 'dir')) files.push({ path: rel, operation: want && want.kind !== 'dir' ? 'modify' : 'delete' });
  }
  for (const [rel, want] of target) {
    if (current.has(rel)) continue;
    creates.push([rel, want]);
    if (want.kind !== 'dir') files.push({ path: rel, operation: 'create' });
  }
  // Deepest first, and nothing below a folder that goes anyway.
  const ops: RewindOp[] = [];
  const removed = new Set<string>();
  const below = (rel: string) => {
    for (let at = path.posix.dirname(rel); at !== '.'; at = path.posix.dirname(at)) if (removed.has(at)) return true;
    return false;
  };
  for (const rel of removes.sort(byPath)) {
    if (below(rel)) continue;
    removed.add(rel);
    ops.push({ op: 'remove', path: rel });
  }
  // Folders before what they hold; their modes last (a read-only folder is filled first).
  creates.sort(([a], [b]) => byPath(a, b));
  for (const [rel, want] of creates) {
    if (want.kind === 'file') ops.push({ op: 'write', path: rel, hash: want.hash, mode: want.mode });
    else if (want.kind === 'symlink') ops.push({ op: 'symlink', path: rel, target: want.target });
    else ops.push({ op: 'mkdir', path: rel, mode: want.mode });
  }
  return { ops, files: files.sort((a, b) => byPath(a.path, b.path)) };
}

/**
 * Runs `body` with `dir` writable by its owner (a step may have made it read-only), then puts its
 * mode back. `writable`: folders known to be writable already, not looked at again; one found so is added.
 */
function inWritable<T>(dir: string, body: () => T, writable?: Set<string>): T {
  if (writable?.has(dir)) return body();
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  const mode = stats?.isDirectory() ? stats.mode & 0o7777 : null;
  if (mode !== null && (mode & 0o700) === 0o700) writable?.add(dir);
  if (mode === null || (mode & 0o700) === 0o700) return body();
  chmodSync(dir, mode | 0o700);
  try {
    return body();
  } finally {
    chmodSync(dir, mode);
  }
}

/** Removes `absolute` and all below it, making read-only folders inside it writable first (they go anyway). */
function removeTree(absolute: string): void {
  try {
    rmSync(absolute, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
  }
  const open = (dir: string) => {
    if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    chmodSync(dir, 0o700);
    for (const dirent of readdirSync(dir, { withFileTypes: true })) if (dirent.isDirectory()) open(path.join(dir, dirent.name));
  };
  open(absolute);
  rmSync(absolute, { recursive: true, force: true });
}

/**
 * Applies `ops` under `root`. Each is idempotent (a write or a link is a temporary file renamed into
 * place, a removal of what is gone does nothing), so a journal applied again after a crash ends the
 * same. Synchronous, as git's checkout is: a data directory opened after a crash finishes the
 * rewind before anything reads the sandbox. `between` runs after each operation (a test pauses
 * there to kill the process).
 */
export function applyRestore(root: string, ops: readonly RewindOp[], objects: ObjectStore, between?: () => void): void {
  const at = (rel: string) => path.join(root, ...rel.split('/'));
  const dirModes: [string, number][] = [];
  // Folders known to be there, so a file's write does not make its folder again; and those known
  // writable, so 1,000 writes into 200 folders look at each folder's mode once (no operation but a
  // removal, which forgets what it removed, changes a folder's mode before the end).
  const made = new Set<string>();
  const writable = new Set<string>();
  const parentOf = (absolute: string) => {
    const dir = path.dirname(absolute);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    return dir;
  };
  const forget = (absolute: string) => {
    for (const known of [made, writable]) for (const dir of known) if (dir === absolute || dir.startsWith(`${absolute}${path.sep}`)) known.delete(dir);
  };
  for (const op of ops) {
    const absolute = at(op.path);
    switch (op.op) {
      case 'remove':
        inWritable(path.dirname(absolute), () => removeTree(absolute), writable);
        forget(absolute);
        break;
      case 'mkdir':
        // Made writable for what goes in it; the recorded mode is set once everything is in.
        mkdirSync(absolute, { recursive: true, mode: 0o700 });
        chmodSync(absolute, op.mode | 0o700);
        dirModes.push([absolute, op.mode]);
        made.add(absolute);
        writable.add(absolute);
        break;
      case 'write':
        inWritable(parentOf(absolute), () => objects.restore(op.hash, absolute, op.mode), writable);
        break;
      case 'symlink': {
        const parent = parentOf(absolute);
        inWritable(parent, () => {
          const temp = temporaryName(parent);
          symlinkSync(op.target, temp);
          try {
            renameSync(temp, absolute);
          } catch (error) {
            rmSync(temp, { force: true });
            throw error;
          }
        }, writable);
        break;
      }
    }
    between?.();
  }
  for (const [absolute, mode] of dirModes.reverse()) chmodSync(absolute, mode);
}

/** Removals in flight at once: the thread pool has 4 threads unless UV_THREADPOOL_SIZE says more. */
const REMOVALS_IN_FLIGHT = 8;

/**
 * `applyRestore`, with the removals that lead `ops` (planRestore puts them first, none below
 * another) several at a time on the thread pool, and the event loop free meanwhile. On ext4 mounted
 * with `discard` and no journal each freed block is discarded there and then, so one removal waits
 * for the disk 0.2-1 ms; eight in flight overlap: 300 folders of one file went in 50-150 ms, against
 * 450-780 ms one after another (git's checkout removes one after another too). A removal that
 * fails (a read-only folder below) is made again by `removeTree`.
 */
export async function applyRestoreAsync(root: string, ops: readonly RewindOp[], objects: ObjectStore, between?: () => void): Promise<void> {
  let lead = 0;
  while (lead < ops.length && ops[lead].op === 'remove') lead += 1;
  if (lead < 2) return applyRestore(root, ops, objects, between);
  const at = (rel: string) => path.join(root, ...rel.split('/'));
  // Each parent made writable once, before any removal in it, and its mode put back after the last.
  const parents = new Map<string, number | null>();
  for (const op of ops.slice(0, lead)) {
    const dir = path.dirname(at(op.path));
    if (parents.has(dir)) continue;
    const stats = lstatSync(dir, { throwIfNoEntry: false });
    const mode = stats?.isDirectory() ? stats.mode & 0o7777 : null;
    parents.set(dir, mode !== null && (mode & 0o700) !== 0o700 ? mode : null);
  }
  try {
    for (const [dir, mode] of parents) if (mode !== null) chmodSync(dir, mode | 0o700);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < lead && !failed) {
        const absolute = at(ops[next++].path);
        try {
          await rm(absolute, { recursive: true, force: true });
        } catch {
          try {
            removeTree(absolute);
          } catch (error) {
            failed = true;
            throw error;
          }
        }
        between?.();
      }
    };
    // All settled before the modes go back: a failed one stops the others taking more, not those in flight.
    const results = await Promise.allSettled(Array.from({ length: Math.min(REMOVALS_IN_FLIGHT, lead) }, worker));
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  } finally {
    for (const [dir, mode] of parents) if (mode !== null) chmodSync(dir, mode);
  }
  applyRestore(root, ops.slice(lead), objects, between);
}

/** Makes `folder` hold exactly `manifest`'s files, links and folders (a fork's new sandbox, say). */
export async function materialise(manifest: Manifest, objects: ObjectStore, folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const { ops } = await planRestore(folder, manifest);
  await applyRestoreAsync(folder, ops, objects);
}
