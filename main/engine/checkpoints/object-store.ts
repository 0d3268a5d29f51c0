import { randomBytes } from 'node:crypto';
import { chmodSync, constants, copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../change-capture';

/** The temporary name of a write cut off by a crash: the shape removeTemporaryFiles (sandbox/files.ts) clears. */
export const temporaryName = (dir: string) => path.join(dir, `.agents-${randomBytes(8).toString('hex')}.tmp`);

/**
 * File contents by sha256, once per distinct content: `<dir>/ab/cdef…`, as git keeps its loose
 * objects. Every write is a temporary file renamed into place, so an object is whole or absent.
 */
export class ObjectStore {
  /** Hashes known to be stored, so a checkpoint does not stat what it stored before. */
  private readonly known = new Set<string>();

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
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
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
   * Puts the content `hash` at `destination` with `mode`, replacing whatever is there by a rename
   * (a clone of the object where the file system can, a copy elsewhere).
   */
  restore(hash: string, destination: string, mode: number): void {
    const temp = temporaryName(path.dirname(destination));
    try {
      copyFileSync(this.pathOf(hash), temp, constants.COPYFILE_FICLONE);
      chmodSync(temp, mode);
      renameSync(temp, destination);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
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
