import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fstatSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../change-capture';

/** Read once (reading it means setting it): what a new file's mode loses. */
const UMASK = process.umask();

/** The temporary name of a write cut off by a crash: the shape removeTemporaryFiles (sandbox/files.ts) clears. */
export const temporaryName = (dir: string) => path.join(dir, `.agents-${randomBytes(8).toString('hex')}.tmp`);

/**
 * File contents by sha256, once per distinct content: `<dir>/ab/cdef…`, as git keeps its loose
 * objects. Every write is a temporary file renamed into place, so an object is whole or absent.
 */
export class ObjectStore {
  /** Hashes known to be stored, so a checkpoint does not stat what it stored before. */
  private readonly known = new Set<string>();
  /** The two-letter folders made so far. */
  private readonly folders = new Set<string>();

  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    if (this.known.has(hash)) return true;
    if (!existsSync(this.pathOf(hash))) return false;
    this.known.add(hash);
    return true;
  }

  /** Stores `content` unless it is there already; returns its hash. */
  async put(content: Buffer, hash = sha256(content)): Promise<string> {
    if (this.has(hash)) return hash;
    const target = this.pathOf(hash);
    const folder = path.dirname(target);
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      this.folders.add(folder);
    }
    const temp = temporaryName(path.dirname(target));
    await writeFile(temp, content, { mode: 0o600 });
    await rename(temp, target);
    this.known.add(hash);
    return hash;
  }

  read(hash: string): Promise<Buffer> {
    return readFile(this.pathOf(hash));
  }

  /**
   * Puts the content `hash` at `destination` with `mode`. A regular file already there (with no
   * other link to it) is written over in place, then cut to length; anything else there is removed
   * and the file made anew. No temporary file and rename: measured, a new directory entry per file
   * made a rewind of 1,000 files several times slower, and a rewind cut off half way writes the file
   * again when its journal is rolled forward. No O_TRUNC either: freeing a file's blocks and
   * allocating them again cost ten times the write on ext4 (strace: 350 µs against 30 µs).
   */
  restore(hash: string, destination: string, mode: number): void {
    const content = readFileSync(this.pathOf(hash));
    let fd: number | undefined;
    let current = -1;
    let size = 0;
    try {
      // O_NOFOLLOW: never through a link; O_NONBLOCK: a FIFO without a reader fails instead of waiting.
      fd = openSync(destination, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.nlink > 1) {
        closeSync(fd);
        fd = undefined;
        rmSync(destination, { force: true });
      } else {
        current = stats.mode & 0o7777;
        size = stats.size;
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR' || code === 'ETXTBSY') rmSync(destination, { recursive: true, force: true });
      else if (code !== 'ENOENT') throw error;
    }
    if (fd === undefined) {
      fd = openSync(destination, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
      current = mode & ~UMASK;
    }
    try {
      for (let offset = 0; offset < content.length; ) offset += writeSync(fd, content, offset, content.length - offset, offset);
      if (size > content.length) ftruncateSync(fd, content.length);
      // The mode asked for, whatever was there or the umask took off.
      if (current !== mode) fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  }

  /** Bytes stored: what the checkpoint bench measures the store's growth by. */
  async bytes(): Promise<number> {
    let total = 0;
    for (const entry of await readdir(this.dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
      if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
    }
    return total;
  }
}
