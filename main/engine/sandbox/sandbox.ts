import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readlink, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../errors';
import { mapLimit } from './walk';

export { diffSnapshots, scanTree, snapshotTree, type FileSnapshot, type TreeScan, type TreeSnapshot } from './snapshot';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

class ProjectTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${formatBytes(maxBytes)}`);
  }
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * Copies `source` to `destination` (which must not exist): directories, regular files (mode kept)
 * and symlinks verbatim, never followed, so a link in the project still points where it did and the
 * path checks judge it at use. Sockets, FIFOs and devices are skipped.
 *
 * Why this and not fs.cp or `cp -r`: measured on this project's kind of machine (2 cores, ext4,
 * Node 20.20), copying 10,000 files of ~200 bytes in 200 directories, median of 5 interleaved runs
 * with `sync` before each:
 *   cp -r 157 ms | this walker 287 ms | fs.cpSync + FICLONE 584 ms | fs.promises.cp 1,702 ms |
 *   fs.promises.cp + COPYFILE_FICLONE 2,185 ms
 * Under heavy concurrent disk load everything is I/O bound: cp -r 2.7 s, this walker 2.9 s,
 * fs.promises.cp 5.5 s. fs.promises.cp awaits a stat per entry, one at a time; FICLONE changes
 * nothing on ext4, which cannot reflink, but clones for free on btrfs, XFS and APFS. `cp -r` is
 * fastest but is not on Windows, differs between GNU and BSD, and would recreate FIFOs. This
 * walker keeps the thread pool busy, stays within 2x of cp -r, and clones where it can.
 */
export async function copyTree(
  source: string,
  destination: string,
  options: { maxBytes?: number } = {},
): Promise<{ files: number; symlinks: number; skipped: number; bytes: number }> {
  const counts = { files: 0, symlinks: 0, skipped: 0, bytes: 0 };
  const maxBytes = options.maxBytes ?? Infinity;
  const copyDir = async (from: string, to: string): Promise<void> => {
    await mkdir(to);
    const dirents = await readdir(from, { withFileTypes: true });
    await mapLimit(dirents, 32, async (dirent) => {
      const src = path.join(from, dirent.name);
      const dst = path.join(to, dirent.name);
      if (dirent.isDirectory()) return copyDir(src, dst);
      if (dirent.isFile()) {
        counts.files += 1;
        // Counted before the copy, so nothing past the limit is ever written.
        if (maxBytes !== Infinity) {
          counts.bytes += (await lstat(src)).size;
          if (counts.bytes > maxBytes) throw new ProjectTooLarge(maxBytes);
        }
        return copyFile(src, dst, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
      }
      if (dirent.isSymbolicLink()) {
        counts.symlinks += 1;
        return symlink(await readlink(src), dst);
      }
      counts.skipped += 1;
    });
  };
  await copyDir(source, destination);
  return counts;
}

/**
 * Makes the plan's sandbox: a full working copy of the project, `.git` included (so `git status`
 * and `git diff` work in shell.run; snapshots, tools and apply never touch `.git`), at
 * `<sandboxesDir>/<planId>`. Returns its absolute path.
 */
export async function createSandbox(projectPath: string, sandboxesDir: string, planId: string, options: { maxBytes?: number } = {}): Promise<string> {
  if (!SAFE_ID.test(planId)) throw new EngineError(`plan id ${JSON.stringify(planId)} cannot name a sandbox directory`, 'validation', { planId });
  const project = path.resolve(projectPath);
  const projectStats = await stat(project).catch(() => null);
  if (!projectStats?.isDirectory()) throw new EngineError(`project "${projectPath}" is not a directory`, 'validation', { projectPath });
  await mkdir(sandboxesDir, { recursive: true, mode: 0o700 });
  const destination = path.join(path.resolve(sandboxesDir), planId);
  if (await stat(destination).catch(() => null)) {
    throw new EngineError(`sandbox "${destination}" already exists`, 'conflict', { sandboxRoot: destination });
  }
  const relation = path.relative(project, destination);
  if (relation === '' || (!relation.startsWith('..') && !path.isAbsolute(relation))) {
    throw new EngineError(`sandbox "${destination}" would be inside the project it copies`, 'validation', { projectPath, sandboxesDir });
  }
  try {
    await copyTree(project, destination, { maxBytes: options.maxBytes });
  } catch (error) {
    await rm(destination, { recursive: true, force: true });
    if (error instanceof ProjectTooLarge) {
      throw new EngineError(
        `project "${projectPath}" is larger than the limit of ${formatBytes(error.maxBytes)} that a sandbox copies; choose a smaller project folder, or raise the limit with AGENTS_MAX_PROJECT_BYTES`,
        'validation',
        { projectPath, maxBytes: error.maxBytes },
      );
    }
    throw new EngineError(`could not copy project "${projectPath}" into the sandbox: ${(error as Error).message}`, 'internal', { projectPath, sandboxRoot: destination });
  }
  return destination;
}

/** Deletes a sandbox directory and everything in it (symlinks are removed, not followed). */
export async function removeSandbox(sandboxPath: string): Promise<void> {
  const target = path.resolve(sandboxPath);
  if (target === path.parse(target).root) throw new EngineError(`refusing to remove "${sandboxPath}"`, 'internal');
  await rm(target, { recursive: true, force: true });
}
