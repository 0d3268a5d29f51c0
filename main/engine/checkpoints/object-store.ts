import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fstatSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../run/change-capture';
import { eventLoopYielder } from '../run/event-loop-yield';

/** Read once (reading it means setting it): what a new file's mode loses. */
const UMASK = process.umask();

/** The temporary name of a write cut off by a crash: the shape removeTemporaryFiles (sandbox/files.ts) clears. */
export const temporaryName = (dir: string) => path.join(dir, `.agents-${randomBytes(8).toString('hex')}.tmp`);

/**
 * How long an object no checkpoint names is kept. Collection guards against a checkpoint being
 * recorded at the same time, in this process or another, by this grace period on the object's
 * mtime rather than a lock (git prunes its loose objects the same way): a recorder stores an object
 * before its checkpoint's row names it, and may find it stored already and use it as it is. So
 * `put` touches an object it finds older than FRESHEN_MS, and collection leaves alone any object
 * younger than the grace period; an object set aside for removal is looked at once more, and put
 * back if it was touched meanwhile (a touch after it was set aside fails, and the recorder stores
 * it again). Safe while recording a checkpoint plus one collection take under GRACE - FRESHEN
 * (12 hours); nothing is locked, so nothing is left locked by a process that was killed.
 */
export const OBJECT_GRACE_MS = 24 * 60 * 60 * 1000;
const FRESHEN_MS = OBJECT_GRACE_MS / 2;
/** The suffix of an object set aside by a collection, until it is removed or put back. */
const ASIDE = '.collecting';

/**
 * File contents by sha256, once per distinct content: `<dir>/ab/cdef…`, as git keeps its loose
 * objects. Every write is a temporary file renamed into place, so an object is whole or absent.
 */
export class ObjectStore {
  /** Hashes known to be stored, with when they were stored or last touched (ms), so a checkpoint does not stat what it stored before. */
  private readonly known = new Map<string, number>();
  /** The two-letter folders made so far. */
  private readonly folders = new Set<string>();

  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Whether `hash` is stored; one found older than FRESHEN_MS is touched, so a collection keeps it for the grace period. */
  has(hash: string): boolean {
    const now = Date.now();
    const seen = this.known.get(hash);
    if (seen !== undefined && now - seen < FRESHEN_MS) return true;
    const file = this.pathOf(hash);
    const stats = statSync(file, { throwIfNoEntry: false });
    if (!stats) return false;
    let fresh = stats.mtimeMs;
    if (now - fresh >= FRESHEN_MS) {
      try {
        utimesSync(file, now / 1000, now / 1000);
      } catch (error) {
        // Set aside by a collection just now: stored again.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
      fresh = now;
    }
    this.known.set(hash, fresh);
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
    this.known.set(hash, Date.now());
    return hash;
  }

  /**
   * Removes every object not in `referenced` (the hashes the checkpoints and pending rewinds name,
   * read before this is called) that is older than `graceMs`, and what a crash left: temporary
   * files as old, objects a collection set aside. Folders stay (a recorder keeps them known).
   */
  async collect(referenced: ReadonlySet<string>, graceMs = OBJECT_GRACE_MS): Promise<{ removed: number; bytes: number }> {
    const cutoff = Date.now() - graceMs;
    const yieldNow = eventLoopYielder();
    let removed = 0;
    let bytes = 0;
    let folders: string[];
    try {
      folders = readdirSync(this.dir).filter((name) => /^[0-9a-f]{2}$/.test(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed, bytes };
      throw error;
    }
    for (const folder of folders) {
      const dir = path.join(this.dir, folder);
      const names = readdirSync(dir);
      const present = new Set(names);
      for (const name of names) {
        const pause = yieldNow();
        if (pause) await pause;
        const file = path.join(dir, name);
        if (name.endsWith(ASIDE)) {
          // A collection killed before removing it (or one running now: putting back is harmless). Put back, and judged below.
          const original = name.slice(0, -ASIDE.length);
          if (present.has(original)) {
            rmSync(file, { force: true });
          } else if (renameIfThere(file, path.join(dir, original))) {
            names.push(original);
            present.add(original);
          }
          continue;
        }
        if (name.startsWith('.agents-') && name.endsWith('.tmp')) {
          if ((statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < cutoff) rmSync(file, { force: true });
          continue;
        }
        const hash = folder + name;
        if (!/^[0-9a-f]{64}$/.test(hash) || referenced.has(hash)) continue;
        if ((statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) >= cutoff) continue;
        const aside = file + ASIDE;
        if (!renameIfThere(file, aside)) continue;
        // Looked at again once set aside: a recorder that touched it before is seen now, one after finds it gone and stores it again.
        const stats = statSync(aside, { throwIfNoEntry: false });
        if (!stats) continue;
        if (stats.mtimeMs >= cutoff) {
          if (existsSync(file)) rmSync(aside, { force: true });
          else renameIfThere(aside, file);
          continue;
        }
        if (!unlinkIfThere(aside)) continue;
        this.known.delete(hash);
        removed += 1;
        bytes += stats.size;
      }
    }
    return { removed, bytes };
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

/** Removes `file`; false when it is gone (another collection took it). */
function unlinkIfThere(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Renames `from` to `to`; false when `from` is gone (another collection took it). */
function renameIfThere(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
