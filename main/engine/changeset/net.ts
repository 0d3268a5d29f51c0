import type { ChangeEntry, ChangeOperation } from '../../../shared/changes';
import { EngineError } from '../errors';

/** The net effect of a changeset on one path (or, for a rename, on a pair of paths). */
export interface NetChange {
  path: string;
  /** For renames: where the content was in the original tree. */
  oldPath: string | null;
  operation: ChangeOperation;
  before: Buffer | null;
  after: Buffer | null;
  beforeHash: string | null;
  afterHash: string | null;
  /** Permission bits on each side, where recorded (null: not there, or not known). */
  beforeMode: number | null;
  afterMode: number | null;
}

/** The mode git gives a file: 100755 when its owner may run it, else 100644. */
export function gitMode(mode: number): '100755' | '100644' {
  return mode & 0o100 ? '100755' : '100644';
}

/** Both modes known and different as git counts modes (a chmod 600 changes nothing git sees). */
export function gitModeChanged(change: Pick<NetChange, 'beforeMode' | 'afterMode'>): boolean {
  return change.beforeMode !== null && change.afterMode !== null && gitMode(change.beforeMode) !== gitMode(change.afterMode);
}

interface Content {
  bytes: Buffer | null;
  hash: string | null;
}

/** One side of an entry as stored (base64 for binary entries), or null when the file did not exist there. */
export function entryText(entry: ChangeEntry, side: 'before' | 'after'): string | null {
  const text = side === 'before' ? entry.beforeText : entry.afterText;
  const hash = side === 'before' ? entry.beforeHash : entry.afterHash;
  if (hash === null) return null;
  if (text === null) {
    throw new EngineError(`change entry ${entry.id} for "${entry.path}" has no ${side} content stored`, 'internal', { entryId: entry.id, path: entry.path });
  }
  return text;
}

/** One side of an entry as bytes: base64 for binary entries, UTF-8 otherwise. */
export function entryContent(entry: ChangeEntry, side: 'before' | 'after'): Content {
  const text = entryText(entry, side);
  if (text === null) return { bytes: null, hash: null };
  return { bytes: Buffer.from(text, entry.binary ? 'base64' : 'utf8'), hash: side === 'before' ? entry.beforeHash : entry.afterHash };
}

interface PathState {
  original: Content;
  current: Content;
  originalMode: number | null;
  currentMode: number | null;
  /** The original path whose content this path now holds through renames (kept across later edits). */
  origin: string | null;
}

/**
 * Collapses a changeset into one change per path, in path order: the first "before" against the
 * last "after". A file written and then edited is one create; created and then deleted is nothing;
 * renamed (and perhaps edited) away from a path that existed originally is one rename.
 */
export function netChanges(entries: readonly ChangeEntry[]): NetChange[] {
  const states = new Map<string, PathState>();
  const touch = (path: string, before: Content, beforeMode: number | null): PathState => {
    let state = states.get(path);
    if (!state) {
      state = { original: before, current: before, originalMode: beforeMode, currentMode: beforeMode, origin: null };
      states.set(path, state);
    }
    return state;
  };

  for (const entry of entries) {
    const before = entryContent(entry, 'before');
    const after = entryContent(entry, 'after');
    const beforeMode = before.hash === null ? null : (entry.beforeMode ?? null);
    const afterMode = after.hash === null ? null : (entry.mode ?? null);
    if (entry.operation === 'rename' && entry.oldPath) {
      const source = touch(entry.oldPath, before, beforeMode);
      const origin = source.origin ?? (source.original.hash !== null ? entry.oldPath : null);
      source.current = { bytes: null, hash: null };
      source.currentMode = null;
      source.origin = null;
      const target = touch(entry.path, { bytes: null, hash: null }, null);
      target.current = after;
      target.currentMode = afterMode;
      target.origin = origin;
    } else {
      const state = touch(entry.path, before, beforeMode);
      state.current = after;
      state.currentMode = afterMode;
      if (after.hash === null || entry.operation === 'create') state.origin = null;
    }
  }

  const net: NetChange[] = [];
  const claimed = new Set<string>();
  const renamedTo = new Set<string>();
  const isNetDeleted = (path: string) => {
    const state = states.get(path);
    return !!state && state.original.hash !== null && state.current.hash === null;
  };
  for (const [path, state] of states) {
    const { original, current, origin } = state;
    if (original.hash === null && current.hash !== null && origin && isNetDeleted(origin) && !claimed.has(origin)) {
      claimed.add(origin);
      renamedTo.add(path);
      const source = states.get(origin) as PathState;
      net.push({ path, oldPath: origin, operation: 'rename', before: source.original.bytes, after: current.bytes, beforeHash: source.original.hash, afterHash: current.hash, beforeMode: source.originalMode, afterMode: state.currentMode });
    }
  }
  for (const [path, { original, current, originalMode, currentMode }] of states) {
    if (claimed.has(path) || renamedTo.has(path)) continue;
    const modes = { beforeMode: originalMode, afterMode: currentMode };
    // The same content is a change still when its mode changed as git counts modes (`chmod +x`).
    if (original.hash === current.hash && (current.hash === null || !gitModeChanged(modes))) continue;
    const operation: ChangeOperation = original.hash === null ? 'create' : current.hash === null ? 'delete' : 'modify';
    net.push({ path, oldPath: null, operation, before: original.bytes, after: current.bytes, beforeHash: original.hash, afterHash: current.hash, ...modes });
  }
  return net.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
