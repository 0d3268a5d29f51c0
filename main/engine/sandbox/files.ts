import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFile as readFileCallback, readSync, renameSync, unlinkSync, write as writeCallback, writeSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const readFd = promisify(readFileCallback) as (fd: number) => Promise<Buffer>;
const writeFd = promisify(writeCallback) as (fd: number, buffer: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number }>;

/**
 * Up to this size a file's bytes are read and written with synchronous calls. On a 2-core machine
 * each asynchronous fs call costs 70-100 µs of thread-pool round trip, several times the system call
 * itself (a 1 KiB write: about 10 µs); a file tool made ten of them per call. Synchronous I/O of at
 * most 256 KiB on a local sandbox blocks the event loop for well under a millisecond, and the
 * executor yields to the event loop between calls (docs/ARCHITECTURE.md, "Runs"). Bigger contents go
 * through the thread pool.
 */
export const SYNC_IO_MAX_BYTES = 256 * 1024;

/** Closes `fd`, keeping the error that is already on its way out. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closing can only fail here after another error, which is the one worth reporting.
  }
}

/**
 * The bytes of a regular file, or null when nothing is there. Never follows a symlink at the last
 * component; O_NONBLOCK keeps a FIFO from blocking the open until some writer appears.
 */
export async function readFileOrNull(absolute: string): Promise<Buffer | null> {
  // Nothing there (the common case for a file about to be created): an lstat, without the cost of
  // an exception. Whatever is there is opened and judged below.
  try {
    if (!lstatSync(absolute, { throwIfNoEntry: false })) return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
  }
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw Object.assign(new Error(`${absolute} is not a regular file`), { code: stats.isDirectory() ? 'EISDIR' : 'EINVAL' });
    if (stats.size > SYNC_IO_MAX_BYTES) return await readFd(fd);
    // One byte more than the size seen, to see the end; a file that grew meanwhile is read on
    // (from the current position) through the thread pool, so a busy writer cannot hold the loop.
    const buffer = Buffer.allocUnsafe(Math.max(stats.size + 1, 1024));
    let filled = 0;
    for (;;) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) return buffer.subarray(0, filled);
      filled += read;
      if (filled === buffer.length) return Buffer.concat([buffer, await readFd(fd)]);
    }
  } finally {
    closeQuietly(fd);
  }
}

/**
 * A reader for many files in a row that a directory listing has just named (a search): the bytes of
 * a regular file of at most `maxBytes`, or null for anything else (gone, a symlink, a directory,
 * bigger). A file that fits the reader's buffer costs three system calls (open, read, close), no
 * allocation and no promise; the bytes returned are a view of that buffer, valid until the next
 * call. A larger file is checked with fstat and read through the thread pool (the promise).
 */
export function listedFileReader(maxBytes: number): (absolute: string) => Buffer | null | Promise<Buffer | null> {
  const scratch = Buffer.allocUnsafe(SYNC_IO_MAX_BYTES);
  const readRest = async (fd: number): Promise<Buffer | null> => {
    try {
      return Buffer.concat([scratch, await readFd(fd)]).subarray(0, maxBytes);
    } catch {
      return null;
    } finally {
      closeQuietly(fd);
    }
  };
  return (absolute) => {
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO put where the listing saw a file reads as empty instead of waiting for a writer.
      fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return null;
    }
    let large = false;
    try {
      const read = readSync(fd, scratch, 0, scratch.length, null);
      if (read < scratch.length) return scratch.subarray(0, read);
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size > maxBytes) return null;
      large = true;
      return readRest(fd);
    } catch {
      return null;
    } finally {
      if (!large) closeQuietly(fd);
    }
  };
}

async function writeAll(fd: number, content: Buffer): Promise<void> {
  let offset = 0;
  if (content.length <= SYNC_IO_MAX_BYTES) {
    while (offset < content.length) offset += writeSync(fd, content, offset, content.length - offset);
    return;
  }
  while (offset < content.length) offset += (await writeFd(fd, content, offset, content.length - offset)).bytesWritten;
}

/**
 * Replaces the file at `absolute` by writing a fresh temporary file beside it and renaming it over.
 * A rename swaps the directory entry instead of writing through it, so a hard link or a symlink swapped
 * in at the last moment can never carry the bytes to a file outside; readers also never see half a file.
 * The old file's permission bits are kept. Missing parent directories are created.
 */
export async function writeFileAtomic(absolute: string, content: Buffer | string): Promise<void> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const dir = path.dirname(absolute);
  let mode: number | undefined;
  try {
    // Without an exception when nothing is there, the common case for a file about to be created.
    const existing = lstatSync(absolute, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw Object.assign(new Error(`${absolute} is a directory`), { code: 'EISDIR' });
    if (existing?.isFile()) mode = existing.mode & 0o7777;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing parent is made below (and a parent that is a file fails there, as mkdir -p does).
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  // A short fixed-shape name: the target's own name may already be at the 255-byte limit.
  const temp = path.join(dir, `.agents-${randomBytes(8).toString('hex')}.tmp`);
  // (removeTemporaryFiles knows this name's shape.)
  // O_EXCL refuses to open through anything already at the temporary name, a symlink included.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = openSync(temp, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    mkdirSync(dir, { recursive: true });
    fd = openSync(temp, flags, 0o666);
  }
  try {
    try {
      await writeAll(fd, bytes);
    } catch (error) {
      closeQuietly(fd);
      throw error;
    }
    // Not quietly: some file systems report a failed write only when the file is closed.
    closeSync(fd);
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, absolute);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone.
    }
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

const TEMPORARY = /^\.agents-[0-9a-f]{16}\.tmp$/;

/**
 * Removes the temporary files of writes cut off by a stopped process (writeFileAtomic's names), so
 * a sandbox left by an interrupted run holds only the plan's own files. Returns how many it removed.
 */
export function removeTemporaryFiles(root: string): number {
  let removed = 0;
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !TEMPORARY.test(entry.name)) continue;
    unlinkSync(path.join(entry.parentPath, entry.name));
    removed += 1;
  }
  return removed;
}
