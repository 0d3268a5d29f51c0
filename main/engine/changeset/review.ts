import { chmod, lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeEntry, ChangeOperation, DiffHunk } from '../../../shared/changes';
import { isBinary, sha256 } from '../run/change-capture';
import { EngineError } from '../errors';
import { pruneEmptyDirs, readFileOrNull, writeFileAtomic } from '../sandbox/files';
import { normalizeRelPath, resolveInSandbox, showPath } from '../sandbox/paths';
import { formatGitDiff } from './diff';
import { applyHunks, type HunkInfo, listHunks } from './hunks';
import { type LineDiff, lineDiff, structuredHunks } from './line-diff';
import { gitMode, gitModeChanged, type NetChange, netChanges } from './net';

/** What an earlier apply wrote for one path of a plan's changeset. */
export interface AppliedRecord {
  path: string;
  /** The hunks applied so far, 1-based; a change without text hunks is the one unit [1]. */
  hunks: number[];
  /** sha256 of what the project held at `path` right after (null: the apply removed the file). */
  contentHash: string | null;
  appliedAt: string;
}

/** Which paths of which plans were applied, and how far; kept so apply can be repeated. */
export interface AppliedLog {
  list(planId: string): Promise<AppliedRecord[]>;
  /** Replaces the records of these paths. */
  record(planId: string, records: readonly AppliedRecord[]): Promise<void>;
}

export type ReviewState = 'remaining' | 'partial' | 'applied';

/** One file of a changeset as an operator reviews it: the net change across every step that touched it. */
export interface ReviewFile {
  path: string;
  oldPath: string | null;
  operation: ChangeOperation;
  binary: boolean;
  insertions: number;
  deletions: number;
  /** The recorded entries behind this row, oldest first, and the steps they came from. */
  entryIds: string[];
  decisionIds: string[];
  hunks: (HunkInfo & { applied: boolean })[];
  /** How many units apply counts: the hunks, or 1 for a change without text hunks (binary, pure rename). */
  units: number;
  appliedHunks: number[];
  state: ReviewState;
  /** The operator changed the file by hand in the sandbox ("Edited by you"). */
  editedByOperator: boolean;
  /** A mode git counts changed (`chmod +x`), as git names the modes; absent when none did. */
  modeChange?: { from: string; to: string };
}

/** A reviewed file with the net change behind it. */
export interface Reviewed {
  change: NetChange;
  file: ReviewFile;
  /** The net change's line diff, made once for its hunks, its patch and what apply writes (null when binary). */
  diff: LineDiff | null;
}

function involvedEntries(change: NetChange, entries: readonly ChangeEntry[]): ChangeEntry[] {
  const touched = new Set([change.path, ...(change.oldPath ? [change.oldPath] : [])]);
  const involved: ChangeEntry[] = [];
  for (const entry of entries) {
    if (touched.has(entry.path) || (entry.oldPath !== null && touched.has(entry.oldPath))) {
      involved.push(entry);
      touched.add(entry.path);
      if (entry.oldPath) touched.add(entry.oldPath);
    }
  }
  return involved;
}

/** `diffOf`: how a net change's texts are diffed; a caller that diffed the same texts already can hand that diff back. */
export function reviewNet(entries: readonly ChangeEntry[], applied: readonly AppliedRecord[], diffOf: (before: string, after: string) => LineDiff = lineDiff): Reviewed[] {
  const records = new Map(applied.map((r) => [r.path, r]));
  return netChanges(entries).map((change) => {
    const involved = involvedEntries(change, entries);
    const binary = involved.some((e) => e.binary) || isBinary(change.before) || isBinary(change.after);
    const diff = binary ? null : diffOf(change.before?.toString('utf8') ?? '', change.after?.toString('utf8') ?? '');
    const hunks = diff ? listHunks(diff) : [];
    const units = Math.max(1, hunks.length);
    const done = new Set(records.get(change.path)?.hunks ?? []);
    const appliedHunks = [...done].filter((h) => h >= 1 && h <= units).sort((x, y) => x - y);
    const state: ReviewState = appliedHunks.length === 0 ? 'remaining' : appliedHunks.length === units ? 'applied' : 'partial';
    return {
      change,
      diff,
      file: {
        path: change.path,
        oldPath: change.oldPath,
        operation: change.operation,
        binary,
        insertions: hunks.reduce((n, h) => n + h.insertions, 0),
        deletions: hunks.reduce((n, h) => n + h.deletions, 0),
        entryIds: involved.map((e) => e.id),
        decisionIds: [...new Set(involved.map((e) => e.decisionId).filter((id): id is string => id !== null))],
        hunks: hunks.map((h) => ({ ...h, applied: done.has(h.index) })),
        units,
        appliedHunks,
        state,
        editedByOperator: involved.some((e) => e.origin === 'operator'),
        ...(change.operation !== 'create' && change.operation !== 'delete' && gitModeChanged(change) ? { modeChange: { from: gitMode(change.beforeMode as number), to: gitMode(change.afterMode as number) } } : {}),
      },
    };
  });
}

/** The paths with something still to apply once `written` (an apply's new records) is recorded over the review. */
export function remainingAfter(reviewed: readonly Reviewed[], written: readonly AppliedRecord[]): string[] {
  const now = new Map(written.map((r) => [r.path, r.hunks.length]));
  return reviewed.filter(({ file }) => file.state !== 'applied' && (now.get(file.path) ?? file.appliedHunks.length) < file.units).map(({ file }) => file.path);
}

/** The changeset as files to review, in path order, with what earlier applies wrote. */
export function reviewChanges(entries: readonly ChangeEntry[], applied: readonly AppliedRecord[]): ReviewFile[] {
  return reviewNet(entries, applied).map((r) => r.file);
}

export interface ApplyConflict {
  path: string;
  /** sha256 the changeset expects to find (null: the file should not exist). */
  expectedHash: string | null;
  /** sha256 found (null: no file). */
  actualHash: string | null;
  reason: string;
}

async function currentHash(absolute: string): Promise<{ hash: string | null; directory: boolean }> {
  const stats = await lstat(absolute).catch(() => null);
  if (stats?.isDirectory()) return { hash: null, directory: true };
  const content = await readFileOrNull(absolute);
  return { hash: content === null ? null : sha256(content), directory: false };
}

function conflictReason(expected: string | null, actual: string | null, directory: boolean): string {
  if (directory) return 'a directory is in the way';
  if (expected === null) return "the file was created in the project since the plan's sandbox was made";
  if (actual === null) return "the file was deleted in the project since the plan's sandbox was made";
  return "the file was modified in the project since the plan's sandbox was made";
}

export interface ReviewSelection {
  /** Apply only these files (a rename is selected by either of its paths). Without paths or hunks: every file with something left. */
  paths?: string[];
  /** For these files, only these hunks (1-based); a file named here is selected whether or not `paths` names it. */
  hunks?: Record<string, number[]>;
  /** Write every selected file as the review shows it, over conflicts too. */
  force?: boolean;
}

export interface ReviewApplyResult {
  applied: string[];
  conflicts: ApplyConflict[];
  /** Files with something left that this apply did not select. */
  skipped: string[];
  /** What to keep in the AppliedLog for the files written now. */
  records: AppliedRecord[];
}

interface Planned {
  path: string;
  /** Removed before anything is written (a delete, or where a rename came from). */
  remove: string | null;
  content: Buffer | null;
  checks: { path: string; expected: string | null }[];
  record: AppliedRecord;
  /** Whether the written file is to be runnable (null: leave its mode as the write left it). */
  executable: boolean | null;
}

/** The mode git's change asks for once the file is whole: a new or moved file's, or one a chmod changed; null: none. */
function executableAfter(change: NetChange, complete: boolean): boolean | null {
  if (!complete || change.after === null || change.afterMode === null) return null;
  if (change.operation === 'create' || change.operation === 'rename' || gitModeChanged(change)) return gitMode(change.afterMode) === '100755';
  return null;
}

/** Sets or clears the execute bits as `chmod +x`/`-x` would (x where r is), leaving the rest of the mode. */
async function setExecutable(absolute: string, executable: boolean): Promise<void> {
  const mode = (await lstat(absolute)).mode & 0o7777;
  const next = executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
  if (next !== mode) await chmod(absolute, next);
}

/**
 * Writes the accepted part of a changeset into the project. Each file goes from what the project
 * holds now (the original, or what an earlier apply wrote) to the original with every accepted
 * hunk so far; hunks left out stay for a later apply. Everything is checked before anything is
 * written: on a conflict nothing is written unless `force`, and then every selected file is written
 * as the review shows it, the conflicting ones included (except where a directory is in the way).
 * A conflict means the project's file is no longer what the sandbox started from (the base).
 */
export async function applyReviewed(projectDir: string, reviewed: readonly Reviewed[], applied: readonly AppliedRecord[], selection: ReviewSelection = {}): Promise<ReviewApplyResult> {
  // A named path that leaves the project can name no change: bad input, not a rule's refusal.
  const norm = (p: string) => {
    try {
      return normalizeRelPath(p, { rootName: 'project' }).join('/');
    } catch (error) {
      throw error instanceof EngineError ? new EngineError(error.message, 'validation', error.details) : error;
    }
  };
  const known = new Set(reviewed.flatMap((r) => [r.file.path, ...(r.file.oldPath ? [r.file.oldPath] : [])]));
  const wantedPaths = selection.paths ? new Set(selection.paths.map(norm)) : null;
  const wantedHunks = new Map(Object.entries(selection.hunks ?? {}).map(([p, h]) => [norm(p), h]));
  for (const p of [...(wantedPaths ?? []), ...wantedHunks.keys()]) {
    if (!known.has(p)) throw new EngineError(`path ${showPath(p)} is not changed by this changeset`, 'validation', { path: p });
  }
  const records = new Map(applied.map((r) => [r.path, r]));
  const now = new Date().toISOString();
  const planned: Planned[] = [];
  const skipped: string[] = [];

  for (const { change, file, diff } of reviewed) {
    if (file.state === 'applied') continue;
    const names = [file.path, ...(file.oldPath ? [file.oldPath] : [])];
    const hunkChoice = names.map((n) => wantedHunks.get(n)).find((h) => h !== undefined);
    // Naming files or hunks picks exactly those; naming nothing picks everything left.
    const selected = hunkChoice !== undefined || (wantedPaths ? names.some((n) => wantedPaths.has(n)) : wantedHunks.size === 0);
    if (!selected) {
      skipped.push(file.path);
      continue;
    }
    for (const h of hunkChoice ?? []) {
      if (!Number.isInteger(h) || h < 1 || h > file.units) {
        throw new EngineError(`${showPath(file.path)} has ${file.units} hunk${file.units === 1 ? '' : 's'}; there is no hunk ${h}`, 'validation', { path: file.path });
      }
    }
    const done = new Set(file.appliedHunks);
    const next = new Set([...done, ...(hunkChoice ?? Array.from({ length: file.units }, (_, i) => i + 1))]);
    if (next.size === done.size) continue;
    const complete = next.size === file.units;
    const content = complete || !diff ? change.after : Buffer.from(applyHunks(diff, next), 'utf8');
    const record: AppliedRecord = { path: file.path, hunks: [...next].sort((x, y) => x - y), contentHash: content === null ? null : sha256(content), appliedAt: now };
    const executable = executableAfter(change, complete);
    const earlier = records.get(file.path);
    if (earlier) {
      // An earlier apply moved the file where it goes; it now holds what that apply wrote.
      planned.push({ path: file.path, remove: content === null ? file.path : null, content, checks: [{ path: file.path, expected: earlier.contentHash }], record, executable });
    } else if (change.operation === 'rename' && change.oldPath) {
      planned.push({
        path: file.path,
        remove: change.oldPath,
        content,
        checks: [
          { path: change.oldPath, expected: change.beforeHash },
          { path: file.path, expected: null },
        ],
        record,
        executable,
      });
    } else {
      planned.push({ path: file.path, remove: content === null ? file.path : null, content, checks: [{ path: file.path, expected: change.beforeHash }], record, executable });
    }
  }

  const conflicts: ApplyConflict[] = [];
  const clean: Planned[] = [];
  for (const plan of planned) {
    let conflicted = false;
    let blocked = false;
    for (const check of plan.checks) {
      const target = await resolveInSandbox(projectDir, check.path, { forWrite: true, rootName: 'project' });
      const actual = await currentHash(target.absolute);
      if (actual.hash !== check.expected || actual.directory) {
        conflicts.push({ path: check.path, expectedHash: check.expected, actualHash: actual.hash, reason: conflictReason(check.expected, actual.hash, actual.directory) });
        conflicted = true;
        blocked ||= actual.directory;
      }
    }
    if (!conflicted || (selection.force && !blocked)) clean.push(plan);
  }
  if (conflicts.length > 0 && !selection.force) return { applied: [], conflicts, skipped, records: [] };

  // Removals first, so a file can become a directory of the same name (and the other way round).
  const written: Planned[] = [];
  try {
    for (const plan of clean) {
      if (!plan.remove) continue;
      const target = await resolveInSandbox(projectDir, plan.remove, { forWrite: true, rootName: 'project' });
      // Forced over a conflict, the file may be gone already.
      await unlink(target.absolute).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await pruneEmptyDirs(target.root, path.dirname(target.absolute));
      if (plan.content === null) written.push(plan);
    }
    for (const plan of clean) {
      if (plan.content === null) continue;
      const target = await resolveInSandbox(projectDir, plan.path, { forWrite: true, rootName: 'project' });
      await writeFileAtomic(target.absolute, plan.content);
      if (plan.executable !== null) await setExecutable(target.absolute, plan.executable);
      written.push(plan);
    }
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError(`apply stopped after ${written.length} file(s): ${(error as Error).message}`, 'internal', { applied: written.map((p) => p.path) });
  }
  return { applied: written.map((p) => p.path).sort(), conflicts, skipped, records: written.map((p) => p.record) };
}

function withDiff(r: Reviewed): { file: ReviewFile; diff: string | null } {
  return { file: r.file, diff: r.diff ? formatGitDiff(r.change, { binary: 'omit' }, r.diff) : null };
}

/** Every reviewed file with the unified diff of its net change, in path order. */
export function reviewDiffs(reviewed: readonly Reviewed[]): { file: ReviewFile; diff: string | null }[] {
  return reviewed.map(withDiff);
}

/** One file of the review (by its path, or where a rename came from) with its net change's hunks as the diff view draws them (null for a binary file). */
export function reviewFileHunks(reviewed: readonly Reviewed[], filePath: string): { file: ReviewFile; hunks: DiffHunk[] | null } | null {
  const found = reviewed.find((r) => r.file.path === filePath || r.file.oldPath === filePath);
  if (!found) return null;
  return { file: found.file, hunks: found.diff ? structuredHunks(found.diff) : null };
}
