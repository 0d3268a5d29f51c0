import type { Stats } from 'node:fs';
import { type Dirent, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { eventLoopYielder } from '../run/event-loop-yield';
import path from 'node:path';
import { sha256 } from '../run/change-capture';
import { EngineError } from '../errors';
import { readFileOrNull } from '../sandbox/files';
import { mapLimit } from '../sandbox/walk';
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

/** A file that a comparison needs only to know is there: its content is never read. */
const UNREAD = { kind: 'file', mode: 0, hash: '', size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 } as const;

const statMatches = (known: ManifestEntry | undefined, stats: Stats): boolean =>
  known?.kind === 'file' &&
  known.size === stats.size &&
  known.mtimeMs === stats.mtimeMs &&
  known.ctimeMs === stats.ctimeMs &&
  known.ino === stats.ino &&
  known.mode === (stats.mode & 0o7777);

/** What stat alone says of a path: its entry, or that its content must be read (`read`). */
type Looked = ManifestEntry | null | { read: Stats };

/**
 * The entry for what is at `absolute` now as far as its stat tells, null when nothing is (or
 * something that is neither file, link nor folder). Synchronous: a thread-pool round trip per stat
 * made a scan of 10,000 paths ten times slower, and a promise per path a rewind's comparison half again.
 */
function lookAt(absolute: string, known: ManifestEntry | undefined, compareOnly: boolean): Looked {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  }
  if (!stats) return null;
  const mode = stats.mode & 0o7777;
  if (stats.isDirectory()) return { kind: 'dir', mode };
  if (stats.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(absolute) };
  if (!stats.isFile()) return null;
  if (statMatches(known, stats)) return known as ManifestEntry;
  // Only compared with `known`: another size is another content, without reading it.
  if (compareOnly && known?.kind === 'file' && known.size !== stats.size) return { ...UNREAD, mode, size: stats.size };
  return { read: stats };
}

/** A file's entry from its content: read, hashed and, given `objects`, stored. */
async function readEntry(absolute: string, rel: string, stats: Stats, objects: ObjectStore | null): Promise<ManifestEntry> {
  const content = await readFileOrNull(absolute);
  if (content === null) {
    throw new EngineError(`cannot read "${rel}" to record a checkpoint`, 'tool', { path: rel });
  }
  const hash = objects ? await objects.put(content) : sha256(content);
  return { kind: 'file', mode: stats.mode & 0o7777, hash, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/** The entry for what is at `absolute` now; a file is read, hashed and stored only when its stat differs from `known`. */
async function entryOf(absolute: string, rel: string, known: ManifestEntry | undefined, objects: ObjectStore | null): Promise<ManifestEntry | null> {
  const looked = lookAt(absolute, known, false);
  return looked && 'read' in looked ? readEntry(absolute, rel, looked.read, objects) : looked;
}

/**
 * Every path below `root` (`.git` left out), listed synchronously: the thread pool's round trip per
 * folder was a third of a rewind's comparison. A folder below the root that may not be read (a step
 * ran `chmod 000` on it) is listed, never read as "empty": what is in it is named in `unreadable`.
 */
function listTree(root: string): { entries: TreeItem[]; unreadable: string[] } {
  const entries: TreeItem[] = [];
  const unreadable: string[] = [];
  const stack: [string, string][] = [[root, '']];
  while (stack.length > 0) {
    const [absolute, relative] = stack.pop() as [string, string];
    let dirents: Dirent[];
    try {
      dirents = readdirSync(absolute, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Removed meanwhile: not there. The root, or a folder we may not read: an error.
      if (relative !== '' && (code === 'ENOENT' || code === 'ENOTDIR')) continue;
      if (relative !== '' && (code === 'EACCES' || code === 'EPERM')) {
        unreadable.push(relative);
        continue;
      }
      throw new EngineError(`cannot read the folder "${relative || root}" for a checkpoint: ${(error as Error).message}`, 'tool', { path: relative, code });
    }
    for (const dirent of dirents) {
      if (dirent.name.toLowerCase() === '.git') continue;
      const rel = relative ? `${relative}/${dirent.name}` : dirent.name;
      // Concatenated: path.join's normalising was a tenth of the comparison.
      const abs = `${absolute}${path.sep}${dirent.name}`;
      const kind = dirent.isFile() ? 'file' : dirent.isDirectory() ? 'directory' : dirent.isSymbolicLink() ? 'symlink' : 'other';
      entries.push({ relative: rel, absolute: abs, kind });
      if (kind === 'directory') stack.push([abs, rel]);
    }
  }
  return { entries, unreadable };
}

interface TreeItem {
  relative: string;
  absolute: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
}

const absoluteOf = (root: string, rel: string) => path.join(root, ...rel.split('/'));

/**
 * Every path below `root` as it is now. Files whose stat matches `previous` keep their entry
 * unread; the others are hashed and, given `objects`, their contents stored. With `onlyKnown`
 * (a comparison with `previous`), a file `previous` does not have, or has with another size, is
 * not read (it is entered with an empty hash).
 */
export async function scanManifest(root: string, objects: ObjectStore | null, previous?: Manifest, options: { onlyKnown?: boolean } = {}): Promise<Manifest> {
  const { entries, unreadable } = listTree(root);
  const manifest: Manifest = new Map();
  // Below a folder that may not be read, what was known stays as it was: nothing there counts as gone.
  const hidden = (rel: string) => unreadable.some((dir) => rel.startsWith(`${dir}/`));
  const kept = unreadable.length > 0 ? [...(previous ?? [])].filter(([rel]) => hidden(rel)) : [];
  // In walkTree's order, so the manifest is sorted; the host's event loop gets a turn every few milliseconds.
  const yieldNow = eventLoopYielder();
  for (const item of entries) {
    const known = previous?.get(item.relative);
    if (options.onlyKnown && item.kind === 'file' && known?.kind !== 'file') {
      manifest.set(item.relative, UNREAD);
      continue;
    }
    const looked = lookAt(item.absolute, known, options.onlyKnown === true);
    const entry = looked && 'read' in looked ? await readEntry(item.absolute, item.relative, looked.read, objects) : looked;
    if (entry) manifest.set(item.relative, entry);
    const pause = yieldNow();
    if (pause) await pause;
  }
  if (kept.length === 0) return manifest;
  return new Map([...manifest, ...kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
  // A folder gone, or replaced by a file or a link, takes what was below it, listed by the capture or not.
  for (const [rel, entry] of Object.entries(delta)) {
    if (entry?.kind === 'dir' || previous.get(rel)?.kind !== 'dir') continue;
    for (const below of previous.keys()) if (below.startsWith(`${rel}/`)) delta[below] = null;
  }
  return Object.fromEntries(Object.entries(delta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
