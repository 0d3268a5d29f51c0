import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { mapLimit } from '../sandbox/walk';
import type { Manifest } from './manifest';
import type { ObjectStore } from './object-store';

/**
 * Fills `folder`, which must not exist yet, with `manifest`'s folders, files (copied from the object
 * store, cloned where the file system can) and links, many at a time as copyTree copies a project.
 * A new folder has nothing to compare or remove, so this is what a fork's sandbox is made with;
 * `applyRestore` (one operation at a time, journaled) is for a sandbox that is there. Measured on
 * the fork benchmark's 10,000 files: 3 times faster than applying the same operations one by one.
 */
export async function fillNewFolder(manifest: Manifest, objects: ObjectStore, folder: string): Promise<void> {
  await mkdir(folder, { mode: 0o700 });
  const entries = [...manifest].filter(([rel]) => rel !== '').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const at = (rel: string) => path.join(folder, ...rel.split('/'));
  // Folders first, parents before children (sorted), writable until everything is in.
  const dirs = entries.flatMap(([rel, e]) => (e.kind === 'dir' ? [[rel, e.mode] as const] : []));
  for (const [rel] of dirs) await mkdir(at(rel), { recursive: true, mode: 0o700 });
  const made = new Set(dirs.map(([rel]) => rel));
  const parent = async (rel: string) => {
    const dir = path.posix.dirname(rel);
    if (dir !== '.' && !made.has(dir)) await mkdir(at(dir), { recursive: true, mode: 0o700 });
  };
  await mapLimit(entries, 32, async ([rel, entry]) => {
    const target = at(rel);
    if (entry.kind === 'file') {
      await parent(rel);
      await copyFile(objects.pathOf(entry.hash), target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      // The copy has the object's mode (0600): the file's own is set.
      await chmod(target, entry.mode);
    } else if (entry.kind === 'symlink') {
      await parent(rel);
      await symlink(entry.target, target);
    }
  });
  // Deepest first, so a read-only folder is closed once what is below it is done.
  for (const [rel, mode] of dirs.reverse()) await chmod(at(rel), mode);
}
