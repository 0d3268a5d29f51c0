import { existsSync } from 'node:fs';
import { lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Plan } from '../../../shared/domain';
import type { PlanGitSource } from '../../../shared/git-source';
import type { ChangeSetStore } from '../ports/changeset-store';
import { EngineError } from '../errors';
import { cloneGitSource } from '../sandbox/git-source';
import { createSandbox } from '../sandbox/sandbox';
import type { SandboxFileStore } from '../sandbox/sandbox-files';
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
}

export interface RemadeSandbox {
  root: string;
  /** What the changes were laid on: the git project at its base commit, the local project, or nothing (a project not on this machine). */
  base: 'git' | 'project' | 'empty';
  /** The commit cloned, for a git project (the recorded base, or the ref's commit when none was recorded). */
  baseCommit: string | null;
  /** The paths the recorded changes wrote. */
  applied: string[];
  /**
   * The paths where the base is not what the sandbox started from (a local project edited since, or
   * one not on this machine), in path order: a changed path holds what the changes say all the same,
   * an unchanged one what the base holds now.
   */
  drift: string[];
}

/**
 * Remakes a plan's sandbox in `dir` on any machine: the base (a git project cloned at its recorded
 * base commit; a local project copied, when this machine has it; else an empty folder), then the
 * changeset's entries that are not rewound, written by the same apply as into a project, then the
 * sandbox-files base record made to match: the base's files as the base, the remade files as last
 * seen, so the next hand-edit capture finds nothing and a path put back by a later rewind is
 * measured against the true base. Built in a staging folder and renamed into place once recorded,
 * so a crash leaves either no sandbox at `dir` or a whole one.
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
    const baseFiles = await snapshotTree(staging);
    const entries = plan.changesetId ? ((await changesets.get(plan.changesetId))?.entries ?? []) : [];
    const reviewed = reviewNet(entries, []);
    // Written as the changeset says, over a base that drifted too: the sandbox must hold what the changes recorded.
    const result = await applyReviewed(staging, reviewed, [], { force: true });
    const blocked = result.conflicts.filter((c) => c.reason === 'a directory is in the way');
    if (blocked.length > 0) {
      throw new EngineError(`cannot remake the sandbox of plan ${plan.id}: a directory of the base is in the way of ${blocked.map((c) => c.path).join(', ')}`, 'conflict', { planId: plan.id });
    }
    const remade = await snapshotTree(staging);
    await files.recordBase(plan.id, baseFiles);
    await files.saveSeen(plan.id, changedSince(baseFiles, remade));
    await rm(root, { recursive: true, force: true });
    await rename(staging, root);
    const touched = new Set(reviewed.flatMap(({ file }) => (file.oldPath ? [file.path, file.oldPath] : [file.path])));
    const untouched = earlier ? [...new Set([...earlier.keys(), ...baseFiles.keys()])].filter((rel) => !touched.has(rel) && (earlier.get(rel)?.baseHash ?? null) !== (baseFiles.get(rel)?.hash ?? null)) : [];
    const drift = [...new Set([...result.conflicts.map((c) => c.path), ...untouched])].sort();
    return { root, base, baseCommit, applied: result.applied, drift };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
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
