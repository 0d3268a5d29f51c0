import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * The bytes of a regular file, or null when nothing is there. Never follows a symlink at the last
 * component; O_NONBLOCK keeps a FIFO from blocking the open until some writer appears.
 */
export async function readFileOrNull(absolute: string): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error(`${absolute} is not a regular file`), { code: stats.isDirectory() ? 'EISDIR' : 'EINVAL' });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces the file at `absolute` by writing a fresh temporary file beside it and renaming it over.
 * A rename swaps the directory entry instead of writing through it, so a hard link or a symlink swapped
 * in at the last moment can never carry the bytes to a file outside; readers also never see half a file.
 * The old file's permission bits are kept.
 */
export async function writeFileAtomic(absolute: string, content: Buffer | string): Promise<void> {
  const dir = path.dirname(absolute);
  await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    const existing = await lstat(absolute);
    if (existing.isDirectory()) throw Object.assign(new Error(`${absolute} is a directory`), { code: 'EISDIR' });
    if (existing.isFile()) mode = existing.mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A short fixed-shape name: the target's own name may already be at the 255-byte limit.
  const temp = path.join(dir, `.agents-${randomBytes(8).toString('hex')}.tmp`);
  // O_EXCL refuses to open through anything already at the temporary name, a symlink included.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  try {
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, absolute);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Removes empty directories from `dir` upwards, stopping at `root` or at the first non-empty one (as git does). */
export async function pruneEmptyDirs(root: string, dir: string): Promise<void> {
  let current = dir;
  while (current !== root && current.startsWith(root + path.sep)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    current = path.dirname(current);
  }
}
