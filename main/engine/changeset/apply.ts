import { lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeEntry } from '../../../shared/domain';
import { sha256 } from '../change-capture';
import { EngineError } from '../errors';
import { pruneEmptyDirs, readFileOrNull, writeFileAtomic } from '../sandbox/files';
import { normalizeRelPath, resolveInSandbox, showPath } from '../sandbox/paths';
import { type NetChange, netChanges } from './net';

export interface ApplyOptions {
  /** Apply only these paths (a rename is selected by either of its paths); the rest are reported as skipped. */
  paths?: string[];
  /** Apply the non-conflicting paths even when others conflict. */
  force?: boolean;
}

export interface ApplyConflict {
  path: string;
  /** sha256 the changeset expects to find (null: the file should not exist). */
  expectedHash: string | null;
  /** sha256 found (null: no file). */
  actualHash: string | null;
  reason: string;
}

export interface ApplyResult {
  applied: string[];
  conflicts: ApplyConflict[];
  skipped: string[];
}

export async function currentHash(absolute: string): Promise<{ hash: string | null; directory: boolean }> {
  const stats = await lstat(absolute).catch(() => null);
  if (stats?.isDirectory()) return { hash: null, directory: true };
  const content = await readFileOrNull(absolute);
  return { hash: content === null ? null : sha256(content), directory: false };
}

export function conflictReason(expected: string | null, actual: string | null, directory: boolean): string {
  if (directory) return 'a directory is in the way';
  if (expected === null) return "the file was created in the project since the plan's sandbox was made";
  if (actual === null) return "the file was deleted in the project since the plan's sandbox was made";
  return "the file was modified in the project since the plan's sandbox was made";
}

/** Paths a change reads or writes: a rename touches both of its paths. */
function touchedPaths(change: NetChange): string[] {
  return change.oldPath ? [change.oldPath, change.path] : [change.path];
}

/**
 * Writes a changeset into the project directory, safely: the net change per path is applied only
 * where the project still holds what the sandbox started from. Every target is checked before
 * anything is written; on any conflict nothing is written unless `force` is set, and then the
 * conflicting files are left alone. Paths are confined to `projectDir` with the sandbox's rules.
 */
export async function applyChangeset(projectDir: string, entries: readonly ChangeEntry[], options: ApplyOptions = {}): Promise<ApplyResult> {
  const changes = netChanges(entries);
  let selected = changes;
  const skipped: string[] = [];
  if (options.paths) {
    const wanted = new Set(options.paths.map((p) => normalizeRelPath(p, { rootName: 'project' }).join('/')));
    const known = new Set(changes.flatMap(touchedPaths));
    for (const p of wanted) {
      if (!known.has(p)) throw new EngineError(`path ${showPath(p)} is not changed by this changeset`, 'validation', { path: p });
    }
    selected = changes.filter((c) => touchedPaths(c).some((p) => wanted.has(p)));
    const chosen = new Set(selected);
    skipped.push(...changes.filter((c) => !chosen.has(c)).map((c) => c.path));
  }

  // Check everything first: a confinement failure or a conflict is found before a single write.
  const conflicts: ApplyConflict[] = [];
  const clean: NetChange[] = [];
  for (const change of selected) {
    const checks: { path: string; expected: string | null }[] =
      change.operation === 'rename' && change.oldPath
        ? [
            { path: change.oldPath, expected: change.beforeHash },
            { path: change.path, expected: null },
          ]
        : [{ path: change.path, expected: change.beforeHash }];
    let conflicted = false;
    for (const check of checks) {
      const target = await resolveInSandbox(projectDir, check.path, { forWrite: true, rootName: 'project' });
      const actual = await currentHash(target.absolute);
      if (actual.hash !== check.expected || actual.directory) {
        conflicts.push({ path: check.path, expectedHash: check.expected, actualHash: actual.hash, reason: conflictReason(check.expected, actual.hash, actual.directory) });
        conflicted = true;
      }
    }
    if (!conflicted) clean.push(change);
  }
  if (conflicts.length > 0 && !options.force) return { applied: [], conflicts, skipped };

  // Removals first, so a file can become a directory of the same name (and the other way round).
  const applied: string[] = [];
  try {
    for (const change of clean) {
      const removed = change.operation === 'delete' ? change.path : change.operation === 'rename' ? change.oldPath : null;
      if (!removed) continue;
      const target = await resolveInSandbox(projectDir, removed, { forWrite: true, rootName: 'project' });
      await unlink(target.absolute);
      await pruneEmptyDirs(target.root, path.dirname(target.absolute));
      if (change.operation === 'delete') applied.push(change.path);
    }
    for (const change of clean) {
      if (change.operation === 'delete') continue;
      if (change.after === null) throw new EngineError(`the new content of ${showPath(change.path)} is missing`, 'internal', { path: change.path });
      const target = await resolveInSandbox(projectDir, change.path, { forWrite: true, rootName: 'project' });
      await writeFileAtomic(target.absolute, change.after);
      applied.push(change.path);
    }
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError(`apply stopped after ${applied.length} file(s): ${(error as Error).message}`, 'internal', { applied });
  }
  return { applied: applied.sort(), conflicts, skipped };
}
