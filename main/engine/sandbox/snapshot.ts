import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../run/change-capture';
import { EngineError } from '../errors';
import type { CapturedChange } from '../tools/definition';
import type { ContentCache } from './content-cache';
import { readFileOrNull } from './files';
import { mapLimit, walkTree } from './walk';
import { eventLoopYielder } from '../run/event-loop-yield';

export interface FileSnapshot {
  hash: string;
  size: number;
  mtimeMs: number;
  /** ctime and inode catch rewrites that keep size and mtime (`touch -r`, `cp -p`). */
  ctimeMs: number;
  ino: number;
  /** Permission bits (`chmod`'s); absent in a record made before modes were kept. */
  mode?: number;
  /** When the file was stat-ed for hashing; see RACY_WINDOW_MS. */
  hashedAtMs: number;
}

/** Regular files by `/`-separated relative path. `.git` and symlinks are not part of it. */
export type TreeSnapshot = Map<string, FileSnapshot>;

export interface TreeScan {
  files: TreeSnapshot;
  /** Symlinks by relative path, with their (unresolved) targets. */
  symlinks: Map<string, string>;
}

export interface SnapshotOptions {
  /** A previous snapshot of the same tree: files whose size, mtime, ctime and inode match are not read again. */
  previous?: TreeSnapshot;
  /** Where the contents of every file read are kept, so later diffs can produce "before" bytes. */
  cache?: ContentCache;
}

/**
 * A file written within this window before it was hashed may be written again within the same
 * timestamp tick without its stat changing (git's "racily clean" problem; coarse kernel clocks, 2 s
 * FAT timestamps): such files are always read again instead of trusted.
 */
const RACY_WINDOW_MS = 2000;

function reusable(previous: FileSnapshot | undefined, stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number }, cache?: ContentCache): previous is FileSnapshot {
  return (
    previous !== undefined &&
    previous.size === stats.size &&
    previous.mtimeMs === stats.mtimeMs &&
    previous.ctimeMs === stats.ctimeMs &&
    previous.ino === stats.ino &&
    Math.max(previous.mtimeMs, previous.ctimeMs) < previous.hashedAtMs - RACY_WINDOW_MS &&
    (cache === undefined || cache.has(previous.hash))
  );
}

/** Regular files and symlinks below `root`, hashing only what changed since `previous`. */
export async function scanTree(root: string, options: SnapshotOptions = {}): Promise<TreeScan> {
  const { entries } = await walkTree(root, { skipGit: true, strict: true }).catch((error: NodeJS.ErrnoException) => {
    // A folder we cannot list is changes we cannot capture: never read as "everything in it was deleted".
    const where = error.path ? path.relative(root, error.path).split(path.sep).join('/') : '';
    throw new EngineError(`cannot read the folder "${where || root}" to capture changes: ${error.message}`, 'tool', { path: where, code: error.code });
  });
  const files: TreeSnapshot = new Map();
  const symlinks = new Map<string, string>();
  const unreadable = (relative: string, error: unknown): void => {
    // Gone (or swapped for a symlink) between listing and reading: it is simply not in this snapshot.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR' || code === 'EINVAL') return;
    // A file we cannot read is a change we cannot capture: say so rather than miss it.
    throw new EngineError(`cannot read "${relative}" to capture changes: ${(error as Error).message}`, 'tool', { path: relative, code });
  };
  // Stat-ed synchronously, yielding every few milliseconds: a promise per lstat cost ten times the
  // system call (a 10,000-file tree took 100 ms a scan, nearly all of it in lstat's promise round trip).
  const yieldNow = eventLoopYielder();
  const toRead: { entry: (typeof entries)[number]; stats: Stats; hashedAtMs: number }[] = [];
  for (const entry of entries) {
    await yieldNow();
    try {
      if (entry.kind === 'symlink') {
        symlinks.set(entry.relative, readlinkSync(entry.absolute));
        continue;
      }
      if (entry.kind !== 'file') continue;
      const hashedAtMs = Date.now();
      const stats = lstatSync(entry.absolute, { throwIfNoEntry: false });
      if (!stats?.isFile()) continue;
      const previous = options.previous?.get(entry.relative);
      if (reusable(previous, stats, options.cache)) {
        files.set(entry.relative, previous);
        continue;
      }
      // Its place in the map is kept, so the snapshot stays in walkTree's order; filled once read.
      files.set(entry.relative, PENDING);
      toRead.push({ entry, stats, hashedAtMs });
    } catch (error) {
      unreadable(entry.relative, error);
    }
  }
  await mapLimit(toRead, 16, async ({ entry, stats, hashedAtMs }) => {
    try {
      const content = await readFileOrNull(entry.absolute);
      if (content === null) {
        files.delete(entry.relative);
        return;
      }
      const hash = sha256(content);
      await options.cache?.put(hash, content);
      files.set(entry.relative, { hash, size: content.length, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, mode: stats.mode & 0o7777, hashedAtMs });
    } catch (error) {
      files.delete(entry.relative);
      unreadable(entry.relative, error);
    }
  });
  // walkTree sorts its entries, and each file kept its place: the map iterates in path order.
  return { files, symlinks };
}

/** A file listed and not yet read: never left in a finished snapshot. */
const PENDING: FileSnapshot = { hash: '', size: -1, mtimeMs: 0, ctimeMs: 0, ino: 0, hashedAtMs: 0 };

export async function snapshotTree(root: string, options: SnapshotOptions = {}): Promise<TreeSnapshot> {
  return (await scanTree(root, options)).files;
}

/** Both modes known and different (a record from before modes were kept has none: not a change). */
function modeChanged(was: FileSnapshot, now: FileSnapshot): boolean {
  return was.mode !== undefined && now.mode !== undefined && was.mode !== now.mode;
}

function modeOf(file: FileSnapshot | undefined): { mode?: number } {
  return file?.mode === undefined ? {} : { mode: file.mode };
}

function beforeModeOf(file: FileSnapshot | undefined): { beforeMode?: number } {
  return file?.mode === undefined ? {} : { beforeMode: file.mode };
}

/**
 * The changes that turn `before` into `after`, sorted by path. "Before" bytes come from `cache`
 * (the files may be gone from disk); "after" bytes from the cache or, failing that, from disk.
 * A deleted file and a created one with the same non-empty content are reported as one rename.
 */
export async function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot, root: string, cache?: ContentCache): Promise<CapturedChange[]> {
  const beforeBytes = async (rel: string, hash: string): Promise<Buffer> => {
    const content = await cache?.get(hash);
    if (!content) throw new EngineError(`the content of "${rel}" before the change was not kept`, 'internal', { path: rel, hash });
    return content;
  };
  const afterBytes = async (rel: string, hash: string): Promise<Buffer> => {
    const content = (await cache?.get(hash)) ?? (await readFileOrNull(path.join(root, ...rel.split('/'))));
    if (!content) throw new EngineError(`"${rel}" vanished while its change was being captured`, 'internal', { path: rel, hash });
    return content;
  };

  const deleted: string[] = [];
  const created: string[] = [];
  const changes: CapturedChange[] = [];
  for (const [rel, was] of before) {
    const now = after.get(rel);
    if (!now) deleted.push(rel);
    // A mode changed alone (`chmod +x`) is a change too: a remade sandbox or an apply must carry it.
    else if (now.hash !== was.hash || modeChanged(was, now)) changes.push({ operation: 'modify', path: rel, before: await beforeBytes(rel, was.hash), after: await afterBytes(rel, now.hash), ...modeOf(now), ...beforeModeOf(was) });
  }
  for (const rel of after.keys()) if (!before.has(rel)) created.push(rel);

  // Pair deletions with creations of identical content: a `mv` reads better as a rename.
  const deletedByHash = new Map<string, string[]>();
  for (const rel of deleted) {
    const { hash, size } = before.get(rel) as FileSnapshot;
    if (size === 0) continue;
    deletedByHash.set(hash, [...(deletedByHash.get(hash) ?? []), rel]);
  }
  const renamedFrom = new Set<string>();
  for (const rel of created) {
    const { hash } = after.get(rel) as FileSnapshot;
    const source = deletedByHash.get(hash)?.shift();
    if (source !== undefined) {
      renamedFrom.add(source);
      const content = await afterBytes(rel, hash);
      changes.push({ operation: 'rename', path: rel, oldPath: source, before: content, after: content, ...modeOf(after.get(rel)), ...beforeModeOf(before.get(source)) });
    } else {
      changes.push({ operation: 'create', path: rel, before: null, after: await afterBytes(rel, hash), ...modeOf(after.get(rel)) });
    }
  }
  for (const rel of deleted) {
    if (!renamedFrom.has(rel)) changes.push({ operation: 'delete', path: rel, before: await beforeBytes(rel, (before.get(rel) as FileSnapshot).hash), after: null, ...beforeModeOf(before.get(rel)) });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
