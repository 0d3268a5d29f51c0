import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Plan } from '../../../shared/domain';
import type { PlanGitSource } from '../../../shared/git-source';
import type { ChangeEntry } from '../../../shared/changes';
import type { CheckpointStore } from '../checkpoints/checkpoint-store';
import { foldDeltas } from '../checkpoints/manifest';
import type { ObjectStore } from '../checkpoints/object-store';
import { applyRestoreAsync, planRestore } from '../checkpoints/restore';
import type { ChangeSetStore } from '../ports/changeset-store';
import { EngineError } from '../errors';
import { cloneGitSource } from '../sandbox/git-source';
import { createSandbox } from '../sandbox/sandbox';
import type { SandboxFileStore } from '../sandbox/sandbox-files';
import { layShape } from '../sandbox/shape';
import { type FileSnapshot, snapshotTree } from '../sandbox/snapshot';
import { walkTree } from '../sandbox/walk';
import { expectedByChangeset } from './hand-edits';
import { applyReviewed, reviewNet } from './review';

export interface RemakeRequest {
  plan: Pick<Plan, 'id' | 'projectPath' | 'projectSource' | 'changesetId'>;
  /** Where the sandbox goes; anything there already is replaced. */
  dir: string;
  changesets: ChangeSetStore;
  files: SandboxFileStore;
  /** The largest local project copied (as createSandbox takes it). */
  maxBytes?: number;
  /**
   * The plan's checkpoints and their contents: given, the sandbox is made from the last checkpoint
   * (modes, links and empty folders as it recorded them), then the changes after it. `ensure`
   * brings the contents named to this machine first (a team's shared store).
   */
  checkpoints?: { store: CheckpointStore; objects: ObjectStore; ensure?: (hashes: string[]) => Promise<void> };
}

export interface RemadeSandbox {
  root: string;
  /** What the changes were laid on: the git project at its base commit, the local project, or nothing (a project not on this machine). */
  base: 'git' | 'project' | 'empty';
  /** The commit cloned, for a git project (the recorded base, or the ref's commit when none was recorded). */
  baseCommit: string | null;
  /** The paths the recorded changes wrote (after the checkpoint, when made from one). */
  applied: string[];
  /** The step whose checkpoint the sandbox was made from; null: from the base and every change. */
  checkpointStep: number | null;
  /**
   * What `.git` holds: the base's (the clone at its base commit, or the local project's as it is
   * now), never the first sandbox's own (commits made in it are not carried); none without one.
   */
  git: 'base' | 'none';
  /** The first sandbox had a `.git` of its own (as last seen) and the base none: its history is not carried, and this one has no `.git`. */
  ownGit: boolean;
  /**
   * The paths where the base is not what the sandbox started from (a local project edited since, or
   * one not on this machine), in path order: a changed path holds what the changes say all the same,
   * an unchanged one what the base holds now.
   */
  drift: string[];
}

/**
 * Remakes a plan's sandbox in `dir` on any machine: the base (a git project cloned at its recorded
 * base commit; a local project copied, when this machine has it; else an empty folder); then, when
 * the plan has a checkpoint, the last one's files laid over it (contents, modes, symbolic links,
 * empty folders: the base's `.git` is kept, nothing else of the base that the checkpoint does not
 * hold) and the changeset's entries recorded after it; without one, every entry not rewound. Entries
 * are written by the same apply as into a project. The sandbox-files record is made to match, so
 * the next hand-edit capture finds nothing and a path put back by a later rewind is measured
 * against the true base. Built in a staging folder and renamed into place once recorded, so a crash
 * leaves either no sandbox at `dir` or a whole one.
 */
export async function remakeSandbox(request: RemakeRequest): Promise<RemadeSandbox> {
  const { plan, changesets, files } = request;
  const root = path.resolve(request.dir);
  const parent = path.dirname(root);
  // A name createSandbox takes, next to `dir` so the last step is one rename.
  const staging = path.join(parent, `${path.basename(root)}.remaking`);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  await rm(staging, { recursive: true, force: true });
  try {
    // What the sandbox started from, as recorded when it was first made: the base the new one is compared with.
    const earlier = await files.load(plan.id);
    const { base, baseCommit } = await makeBase(plan, staging, request.maxBytes);
    const git = (await lstat(path.join(staging, '.git')).catch(() => null)) ? 'base' : 'none';
    const baseFiles = await snapshotTree(staging);
    const from = request.checkpoints ? await layCheckpoint(plan, staging, request.checkpoints) : null;
    const entries = from ? await entriesAfter(changesets, plan.changesetId, from) : plan.changesetId ? ((await changesets.get(plan.changesetId))?.entries ?? []) : [];
    const reviewed = reviewNet(entries, []);
    // Written as the changeset says, over a base that drifted too: the sandbox must hold what the changes recorded.
    const result = await applyReviewed(staging, reviewed, [], { force: true });
    const blocked = result.conflicts.filter((c) => c.reason === 'a directory is in the way');
    if (blocked.length > 0) {
      throw new EngineError(`cannot remake the sandbox of plan ${plan.id}: a directory of the base is in the way of ${blocked.map((c) => c.path).join(', ')}`, 'conflict', { planId: plan.id });
    }
    await applyModes(staging, entries);
    // Links and folders as last seen, when no checkpoint was taken since (else the checkpoint's stand).
    const shape = await files.loadShape(plan.id);
    const lastCheckpoint = request.checkpoints ? ((await request.checkpoints.store.summaries(plan.id)).at(-1)?.id ?? null) : null;
    if (shape && shape.checkpointId === lastCheckpoint) await layShape(staging, shape);
    const remade = await snapshotTree(staging);
    if (from && earlier) {
      // The checkpoint holds the first sandbox's base where the base here drifted: the recorded base stays true, only what is seen changes.
      const seen = new Map<string, FileSnapshot | null>([...earlier.keys()].map((rel) => [rel, null]));
      for (const [rel, file] of remade) seen.set(rel, file);
      await files.saveSeen(plan.id, seen);
    } else {
      await files.recordBase(plan.id, baseFiles);
      await files.saveSeen(plan.id, changedSince(baseFiles, remade));
    }
    await rm(root, { recursive: true, force: true });
    await rename(staging, root);
    const touched = new Set(reviewed.flatMap(({ file }) => (file.oldPath ? [file.path, file.oldPath] : [file.path])));
    // From a checkpoint, an untouched path holds what the first sandbox held, whatever the base holds now.
    const untouched = earlier && !from ? [...new Set([...earlier.keys(), ...baseFiles.keys()])].filter((rel) => !touched.has(rel) && (earlier.get(rel)?.baseHash ?? null) !== (baseFiles.get(rel)?.hash ?? null)) : [];
    const drift = [...new Set([...result.conflicts.map((c) => c.path), ...untouched])].sort();
    return { root, base, baseCommit, applied: result.applied, drift, checkpointStep: from?.step ?? null, git, ownGit: git === 'none' && (shape?.git ?? false) };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Gives each file the mode its last entry recorded (a `chmod` after the checkpoint; entries made before modes were kept say none). */
async function applyModes(dir: string, entries: readonly ChangeEntry[]): Promise<void> {
  const modes = new Map<string, number | undefined>();
  for (const entry of entries) {
    if (entry.rewound) continue;
    if (entry.oldPath) modes.delete(entry.oldPath);
    if (entry.operation === 'delete') modes.delete(entry.path);
    else modes.set(entry.path, entry.mode);
  }
  for (const [rel, mode] of modes) {
    if (mode === undefined) continue;
    const target = path.join(dir, ...rel.split('/'));
    if ((await lstat(target).catch(() => null))?.isFile()) await chmod(target, mode);
  }
}

interface LaidCheckpoint {
  step: number;
  changesetId: string | null;
  entries: number;
}

/** Makes `dir` hold the plan's last checkpoint (its `.git` left as it is); null when the plan has none, or its contents are not to be had here. */
async function layCheckpoint(plan: RemakeRequest['plan'], dir: string, source: NonNullable<RemakeRequest['checkpoints']>): Promise<LaidCheckpoint | null> {
  const chain = await source.store.list(plan.id);
  const last = chain.at(-1);
  if (!last) return null;
  const manifest = foldDeltas(chain.map((c) => c.delta));
  const hashes = [...new Set([...manifest.values()].flatMap((e) => (e.kind === 'file' ? [e.hash] : [])))];
  await source.ensure?.(hashes);
  // Contents this machine cannot get (another data directory's, not shared): remade from the base and every change instead.
  if (!hashes.every((hash) => source.objects.has(hash))) return null;
  const { ops } = await planRestore(dir, manifest);
  await applyRestoreAsync(dir, ops, source.objects);
  return { step: last.step, changesetId: last.changesetId, entries: last.entries };
}

/**
 * The entries not rewound that were recorded after the checkpoint: past its count (which counts
 * rewound ones) in its own changeset, every one of a changeset started since.
 */
async function entriesAfter(changesets: ChangeSetStore, changesetId: string | null, from: LaidCheckpoint): Promise<ChangeEntry[]> {
  if (!changesetId) return [];
  const offset = from.changesetId === changesetId ? from.entries : 0;
  const limit = (await changesets.countEntries(changesetId)) - offset;
  const later = limit > 0 ? await changesets.listEntries(changesetId, { offset, limit }) : [];
  return later.filter((e) => !e.rewound);
}

async function makeBase(plan: RemakeRequest['plan'], dir: string, maxBytes?: number): Promise<{ base: RemadeSandbox['base']; baseCommit: string | null }> {
  const source: PlanGitSource | null | undefined = plan.projectSource;
  if (source) {
    const { baseCommit } = await cloneGitSource({ git: source.git, ref: source.baseCommit ?? source.ref }, dir);
    return { base: 'git', baseCommit };
  }
  if (plan.projectPath && (await stat(plan.projectPath).catch(() => null))?.isDirectory()) {
    await createSandbox(plan.projectPath, path.dirname(dir), path.basename(dir), { maxBytes });
    return { base: 'project', baseCommit: null };
  }
  await mkdir(dir, { mode: 0o700 });
  return { base: 'empty', baseCommit: null };
}

/** The paths whose file differs between the two snapshots, with what `now` holds there (null: gone). */
function changedSince(before: ReadonlyMap<string, FileSnapshot>, now: ReadonlyMap<string, FileSnapshot>): Map<string, FileSnapshot | null> {
  const seen = new Map<string, FileSnapshot | null>();
  const same = (a: FileSnapshot | undefined, b: FileSnapshot) => a !== undefined && a.hash === b.hash && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
  for (const [rel, file] of now) if (!same(before.get(rel), file)) seen.set(rel, file);
  for (const rel of before.keys()) if (!now.has(rel)) seen.set(rel, null);
  return seen;
}

/** Whether `root` is `<sandboxesDir>/<planId>` and there: the sandbox this data directory made and still has. */
export function sandboxHere(root: string | undefined, sandboxesDir: string, planId: string): boolean {
  return !!root && path.resolve(root) === path.resolve(sandboxesDir, planId) && existsSync(root);
}

/**
 * Whether the folder at `root` is the sandbox the plan's last capture saw, holding what the
 * changeset says: every regular file with the size, times and inode recorded as last seen, and no
 * other; and what was seen of each path is the content the changeset's last entry left there (else
 * the base). A folder at the same path on another machine (data directories named alike), one a
 * process wrote to after it last captured (a worker killed mid-step: writes never recorded), one
 * left behind by a run that ended elsewhere since, or one the changeset moved on from (entries
 * rewound or recorded elsewhere), differs. Only stats are read.
 */
export async function sandboxAsLastSeen(files: SandboxFileStore, changesets: ChangeSetStore, plan: Pick<Plan, 'id' | 'changesetId'>, root: string): Promise<boolean> {
  const records = await files.load(plan.id);
  if (!records) return false;
  const byChangeset = await expectedByChangeset(changesets, plan.changesetId);
  for (const rel of new Set([...records.keys(), ...byChangeset.keys()])) {
    const wanted = byChangeset.has(rel) ? (byChangeset.get(rel)?.hash ?? null) : (records.get(rel)?.baseHash ?? null);
    if ((records.get(rel)?.seen?.hash ?? null) !== wanted) return false;
  }
  const expected = new Map([...records].flatMap(([rel, r]) => (r.seen ? [[rel, r.seen] as const] : [])));
  const { entries } = await walkTree(root, { skipGit: true });
  let found = 0;
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const seen = expected.get(entry.relative);
    const stats = await lstat(entry.absolute).catch(() => null);
    if (!seen || !stats || stats.size !== seen.size || stats.mtimeMs !== seen.mtimeMs || stats.ctimeMs !== seen.ctimeMs || stats.ino !== seen.ino) return false;
    found += 1;
  }
  return found === expected.size;
}
