import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeEntry, ChangeEntryMeta } from '../../../shared/changes';
import { sha256, toChangeEntry } from '../run/change-capture';
import type { ChangeSetStore } from '../ports/changeset-store';
import type { EventPublisher } from '../ports/event-stream';
import { EngineError } from '../errors';
import { ContentCache } from '../sandbox/content-cache';
import { readFileOrNull } from '../sandbox/files';
import { resolveInSandbox } from '../sandbox/paths';
import type { SandboxFileStore } from '../sandbox/sandbox-files';
import { readShape } from '../sandbox/shape';
import { diffSnapshots, type FileSnapshot, scanTree, snapshotTree, type TreeSnapshot } from '../sandbox/snapshot';
import { entryContent } from './net';

export interface HandEditCapture {
  planId: string;
  sandboxRoot: string;
  /** Where the base content of a file the plan never changed is read from, while it still holds it. */
  projectDir: string | null;
  files: SandboxFileStore;
  changesets: ChangeSetStore;
  events: EventPublisher;
  /** The plan's changeset; null when it has none yet. */
  changesetId: string | null;
  /** Opens the plan's changeset, when a hand edit is the first change. */
  startChangeset: () => Promise<string>;
  /** The plan's last checkpoint's id (null: none): given, a whole capture records the sandbox's links and folders with it. */
  lastCheckpoint?: () => Promise<string | null>;
}

/** Records what a newly made sandbox holds: the base every change, and every conflict, is measured against. */
export async function recordSandboxBase(files: SandboxFileStore, planId: string, sandboxRoot: string): Promise<void> {
  await files.recordBase(planId, await snapshotTree(sandboxRoot));
}

/** What the changeset says each path it touched holds now (null: not there), and the entry that put it there. */
export async function expectedByChangeset(changesets: ChangeSetStore, changesetId: string | null): Promise<Map<string, { hash: string | null; entryId: string | null }>> {
  const expected = new Map<string, { hash: string | null; entryId: string | null }>();
  if (!changesetId) return expected;
  const metas = await changesets.listEntryMeta(changesetId, { offset: 0, limit: await changesets.countEntries(changesetId) });
  for (const meta of metas) {
    // A rewound entry is history: the sandbox was put back to before it.
    if (meta.rewound) continue;
    if (meta.operation === 'rename' && meta.oldPath) expected.set(meta.oldPath, { hash: null, entryId: null });
    expected.set(meta.path, { hash: meta.afterHash, entryId: meta.afterHash === null ? null : meta.id });
  }
  return expected;
}

/** Whether the sandbox folder is there; anything there but a folder is an error, not "empty". */
export async function sandboxPresent(root: string): Promise<boolean> {
  const stats = await lstat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new EngineError(`cannot read the sandbox ${root}: ${error.message}`, 'tool', { path: root, code: error.code });
  });
  if (stats && !stats.isDirectory()) throw new EngineError(`the sandbox ${root} is not a folder`, 'tool', { path: root });
  return stats !== null;
}

/** One file's snapshot now (null: no regular file there), without the reuse a tree scan does. */
async function snapshotFile(root: string, rel: string): Promise<FileSnapshot | null> {
  const absolute = path.join(root, ...rel.split('/'));
  const hashedAtMs = Date.now();
  const stats = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
    // Not there is a deletion; a file we cannot look at is a change we cannot capture.
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw new EngineError(`cannot read "${rel}" to capture changes: ${error.message}`, 'tool', { path: rel, code: error.code });
  });
  if (!stats?.isFile()) return null;
  const content = await readFileOrNull(absolute);
  if (content === null) return null;
  return { hash: sha256(content), size: content.length, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, hashedAtMs };
}

const sameSnapshot = (a: FileSnapshot | null, b: FileSnapshot | null) =>
  a === b || (a !== null && b !== null && a.hash === b.hash && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.hashedAtMs === b.hashedAtMs);

/**
 * Finds what changed in the sandbox by hand: every path whose content differs from what the
 * changeset says it holds (the last entry's "after", else the base). Each difference is recorded
 * as a change of origin `operator` from that content to the sandbox's, with its `change_recorded`
 * event, so the changeset stays the difference between the base and the sandbox. Only files whose
 * stat changed since they were last seen are read. With `only`, just those paths are looked at.
 * A sandbox without a recorded base (made by an older version) is left as it is, and so is a
 * sandbox folder that is gone: nothing the operator did there can be known, and reading it as
 * empty would record every file as deleted (and apply would delete them from the project).
 */
export async function captureHandEdits(capture: HandEditCapture, only?: readonly string[]): Promise<ChangeEntryMeta[]> {
  const { planId, sandboxRoot: root, files } = capture;
  const records = await files.load(planId);
  if (!records) return [];
  if (!(await sandboxPresent(root))) return [];
  const previous: TreeSnapshot = new Map();
  for (const [rel, record] of records) if (record.seen) previous.set(rel, record.seen);

  let now: TreeSnapshot;
  if (only) {
    now = new Map();
    for (const rel of only) {
      const file = await snapshotFile(root, rel);
      if (file) now.set(rel, file);
    }
  } else {
    now = (await scanTree(root, { previous })).files;
  }
  const looked = only ?? [...new Set([...previous.keys(), ...now.keys()])];
  const seen = new Map<string, FileSnapshot | null>();
  for (const rel of looked) {
    const file = now.get(rel) ?? null;
    if (!sameSnapshot(previous.get(rel) ?? null, file)) seen.set(rel, file);
  }

  const byChangeset = await expectedByChangeset(capture.changesets, capture.changesetId);
  const expectedHash = (rel: string) => (byChangeset.has(rel) ? byChangeset.get(rel)?.hash ?? null : records.get(rel)?.baseHash ?? null);
  const paths = only ?? [...new Set([...now.keys(), ...byChangeset.keys(), ...[...records].filter(([, r]) => r.baseHash !== null).map(([rel]) => rel)])];
  const differing = paths.filter((rel) => (now.get(rel)?.hash ?? null) !== expectedHash(rel));

  const cache = new ContentCache();
  const before: TreeSnapshot = new Map();
  const after: TreeSnapshot = new Map();
  try {
    for (const rel of differing) {
      const content = await expectedContent(capture, rel, byChangeset.get(rel)?.entryId ?? null, byChangeset.has(rel) ? null : (records.get(rel)?.baseHash ?? null));
      const file = now.get(rel);
      if (content !== null) {
        const hash = sha256(content);
        // The base is gone from the project as well: the change is shown against what the project holds.
        if (hash === file?.hash) continue;
        await cache.put(hash, content);
        before.set(rel, { hash, size: content.length, mtimeMs: 0, ctimeMs: 0, ino: 0, hashedAtMs: 0 });
      }
      if (file) after.set(rel, file);
    }
    const changes = await diffSnapshots(before, after, root, cache);
    const entries: ChangeEntry[] = changes.map((change) => ({ ...toChangeEntry(change, { decisionId: null, invocationId: null }), origin: 'operator' }));
    const recorded = entries.length === 0 ? [] : await recordAll(capture, entries);
    await files.saveSeen(planId, seen);
    // Links and folders are no change of the changeset: kept as seen, for a sandbox remade after the last checkpoint.
    if (!only && capture.lastCheckpoint) await files.saveShape(planId, await readShape(root, await capture.lastCheckpoint()));
    return recorded;
  } finally {
    await cache.dispose();
  }
}

/** Records the entries and their events in one transaction; subscribers hear of them once it commits. */
async function recordAll(capture: HandEditCapture, entries: readonly ChangeEntry[]): Promise<ChangeEntryMeta[]> {
  const { changesets, events, planId } = capture;
  const changesetId = capture.changesetId ?? (await capture.startChangeset());
  const writes = async () => {
    const metas: ChangeEntryMeta[] = [];
    for (const entry of entries) {
      const meta = await changesets.record(changesetId, entry);
      await events.publish(planId, 'change_recorded', { entry: meta });
      metas.push(meta);
    }
    return metas;
  };
  return events.deferDelivery(() => (changesets.atomically ? changesets.atomically(writes) : writes()));
}

/**
 * The content a path should hold: the "after" of the entry that last changed it, or for a path the
 * plan never changed its base, read from the project while the project still holds it (else what
 * the project holds now). Null: the path should not exist.
 */
async function expectedContent(capture: HandEditCapture, rel: string, entryId: string | null, baseHash: string | null): Promise<Buffer | null> {
  if (entryId !== null && capture.changesetId) {
    const entry = await capture.changesets.getEntry(capture.changesetId, entryId);
    return entry ? entryContent(entry, 'after').bytes : null;
  }
  if (baseHash === null || !capture.projectDir) return null;
  // Read with the sandbox's path rules, so a symlink in the project cannot lead the read outside it.
  const target = await resolveInSandbox(capture.projectDir, rel).catch(() => null);
  return target && readFileOrNull(target.absolute).catch(() => null);
}
