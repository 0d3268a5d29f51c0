import { chmod, lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { revertChange } from '../gates/invariants';
import { mapLimit, type TreeEntryKind, walkTree } from '../sandbox/walk';
import type { CapturedChange } from '../tools/definition';

/** What a file's contents do not say: its kind, permission bits and, for a symlink, its target. */
interface Shape {
  kind: TreeEntryKind;
  mode: number;
  target: string | null;
}

/** Every entry below `root` (`.git` aside, as change capture leaves it) by relative path. */
export type TreeShape = Map<string, Shape>;

export async function treeShape(root: string): Promise<TreeShape> {
  const { entries } = await walkTree(root, { skipGit: true, strict: true });
  const shape: TreeShape = new Map();
  await mapLimit(entries, 16, async (entry) => {
    try {
      const stats = await lstat(entry.absolute);
      shape.set(entry.relative, { kind: entry.kind, mode: stats.mode & 0o7777, target: entry.kind === 'symlink' ? await readlink(entry.absolute) : null });
    } catch (error) {
      // Gone between listing and lstat: not part of the tree.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  });
  return shape;
}

const same = (a: Shape, b: Shape) => a.kind === b.kind && a.target === b.target;
const absolute = (root: string, rel: string) => path.join(root, ...rel.split('/'));
const depth = (rel: string) => rel.split('/').length;

/**
 * Puts the sandbox back as it was before a check (README.md, "Verify"): what the check created
 * (files, folders, symlinks) goes, its content changes are reverted, what it deleted comes back,
 * and every permission it changed is set back. `before` is treeShape just before the check ran,
 * `changes` what the change tracker captured of it.
 */
export async function undoCheck(root: string, before: TreeShape, changes: readonly CapturedChange[]): Promise<void> {
  const after = await treeShape(root);
  // New or changed in kind (a symlink retargeted, a file now a folder): removed, the outermost first.
  const removed: string[] = [];
  for (const [rel, now] of after) {
    const was = before.get(rel);
    if (was && same(was, now)) continue;
    if (removed.some((r) => rel.startsWith(`${r}/`))) continue;
    await rm(absolute(root, rel), { recursive: true, force: true });
    removed.push(rel);
  }
  for (const change of [...changes].reverse()) revertChange(root, change);
  // Folders and symlinks it removed or changed come back, parents first (files came back with their contents).
  const gone = [...before].filter(([rel, was]) => was.kind !== 'file' && !(after.has(rel) && same(after.get(rel) as Shape, was)));
  for (const [rel, was] of gone.sort(([a], [b]) => depth(a) - depth(b))) {
    const at = absolute(root, rel);
    if (was.kind === 'directory') await mkdir(at, { recursive: true });
    else if (was.kind === 'symlink') await symlink(was.target as string, at);
  }
  // Permissions last, the deepest first, so a folder made read-only again does not stop the writes above.
  const now = await treeShape(root);
  for (const [rel, was] of [...before].sort(([a], [b]) => depth(b) - depth(a))) {
    const current = now.get(rel);
    if (current && was.kind !== 'symlink' && current.kind === was.kind && current.mode !== was.mode) await chmod(absolute(root, rel), was.mode);
  }
}
