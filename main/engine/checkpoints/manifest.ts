import type { Stats } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../errors';
import { readFileOrNull } from '../sandbox/files';
import { mapLimit, walkTree } from '../sandbox/walk';
import type { ObjectStore } from './object-store';

/**
 * What a sandbox holds, path by path (`/`-separated, `.git` left out as change capture leaves it
 * out): regular files by content hash and mode, symbolic links by target, directories by mode. A
 * file's size, times and inode are a cache: a file whose stat still matches is not read again.
 */
export type ManifestEntry =
  | { kind: 'file'; mode: number; hash: string; size: number; mtimeMs: number; ctimeMs: number; ino: number }
  | { kind: 'symlink'; target: string }
  | { kind: 'dir'; mode: number };
export type Manifest = Map<string, ManifestEntry>;
/** Paths changed from one manifest to the next; null: gone. */
export type ManifestDelta = Record<string, ManifestEntry | null>;

/** The manifest after `deltas` in order, the first of which holds every path. */
export function foldDeltas(deltas: Iterable<ManifestDelta>): Manifest {
  const manifest: Manifest = new Map();
  for (const delta of deltas) {
    for (const [rel, entry] of Object.entries(delta)) {
      if (entry) manifest.set(rel, entry);
      else manifest.delete(rel);
    }
  }
  return manifest;
}

/** Same kind, mode, content or target: what a rewind must make equal. The stat cache does not count. */
export function sameEntry(a: ManifestEntry | undefined, b: ManifestEntry | undefined): boolean {
  if (!a || !b || a.kind !== b.kind) return a === b;
  if (a.kind === 'symlink') return a.target === (b as typeof a).target;
  if (a.kind === 'dir') return a.mode === (b as typeof a).mode;
  return a.hash === (b as typeof a).hash && a.mode === (b as typeof a).mode;
}

const statMatches = (known: ManifestEntry | undefined, stats: Stats): boolean =>
  known?.kind === 'file' &&
  known.size === stats.size &&
  known.mtimeMs === stats.mtimeMs &&
  known.ctimeMs === stats.ctimeMs &&
  known.ino === stats.ino &&
  known.mode === (stats.mode & 0o7777);

/**
 * The entry for what is at `absolute` now, or null when nothing is (or something that is neither
 * file, link nor folder). A file is read, hashed and stored only when its stat differs from `known`.
 */
async function entryOf(absolute: string, rel: string, known: ManifestEntry | undefined, objects: ObjectStore): Promise<ManifestEntry | null> {
  let stats: Stats;
  try {
    stats = await lstat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
  const mode = stats.mode & 0o7777;
  if (stats.isDirectory()) return { kind: 'dir', mode };
  if (stats.isSymbolicLink()) return { kind: 'symlink', target: await readlink(absolute) };
  if (!stats.isFile()) return null;
  if (statMatches(known, stats)) return known as ManifestEntry;
  const content = await readFileOrNull(absolute);
  if (content === null) {
    throw new EngineError(`cannot read "${rel}" to record a checkpoint`, 'tool', { path: rel });
  }
  const hash = await objects.put(content);
  return { kind: 'file', mode, hash, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

const absoluteOf = (root: string, rel: string) => path.join(root, ...rel.split('/'));

/**
 * Every path below `root` as it is now. Files whose stat matches `previous` keep their entry
 * unread; the others are hashed and their contents stored.
 */
export async function scanManifest(root: string, objects: ObjectStore, previous?: Manifest): Promise<Manifest> {
  const { entries } = await walkTree(root, { skipGit: true, strict: true });
  const manifest: Manifest = new Map();
  await mapLimit(entries, 16, async (item) => {
    const entry = await entryOf(item.absolute, item.relative, previous?.get(item.relative), objects);
    if (entry) manifest.set(item.relative, entry);
  });
  return new Map([...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The paths where `after` differs from `before`, stat caches included (a fresh stat saves a read next time). */
export function deltaBetween(before: Manifest, after: Manifest): ManifestDelta {
  const delta: ManifestDelta = {};
  for (const rel of before.keys()) if (!after.has(rel)) delta[rel] = null;
  for (const [rel, entry] of after) {
    const was = before.get(rel);
    if (was !== entry && (!sameEntry(was, entry) || JSON.stringify(was) !== JSON.stringify(entry))) delta[rel] = entry;
  }
  return delta;
}

/** How many paths a delta changes in kind, mode or content, folders left out: a checkpoint's "files changed". */
export function filesChanged(before: Manifest, delta: ManifestDelta): number {
  let count = 0;
  for (const [rel, entry] of Object.entries(delta)) {
    const was = before.get(rel);
    if ((entry?.kind ?? was?.kind) === 'dir' && (was?.kind ?? 'dir') === 'dir') continue;
    if (!sameEntry(was, entry ?? undefined)) count += 1;
  }
  return count;
}

/**
 * The delta from `previous` to what the sandbox holds now, looking only at `paths` (and the folders
 * above them): the paths the change capture saw written since `previous` was taken.
 */
export async function refreshPaths(root: string, objects: ObjectStore, previous: Manifest, paths: Iterable<string>): Promise<ManifestDelta> {
  const look = new Set<string>();
  for (const rel of paths) {
    if (rel.split('/').some((part) => part.toLowerCase() === '.git')) continue;
    for (let at = rel; at !== '.' && at !== ''; at = path.posix.dirname(at)) look.add(at);
  }
  const delta: ManifestDelta = {};
  await mapLimit([...look], 16, async (rel) => {
    const known = previous.get(rel);
    const entry = await entryOf(absoluteOf(root, rel), rel, known, objects);
    if (entry === null) {
      if (known) delta[rel] = null;
    } else if (entry !== known && (!sameEntry(known, entry) || JSON.stringify(known) !== JSON.stringify(entry))) {
      delta[rel] = entry;
    }
  });
  // A folder gone takes what was below it, listed by the capture or not.
  for (const [rel, entry] of Object.entries(delta)) {
    if (entry !== null || previous.get(rel)?.kind !== 'dir') continue;
    for (const below of previous.keys()) if (below.startsWith(`${rel}/`)) delta[below] = null;
  }
  return Object.fromEntries(Object.entries(delta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
