import { chmodSync, type Dirent, type FSWatcher, lstatSync, readdirSync, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../run/change-capture';
import { ContentCache } from '../sandbox/content-cache';
import { readFileOrNull } from '../sandbox/files';
import { diffSnapshots, type FileSnapshot, scanTree, type TreeSnapshot } from '../sandbox/snapshot';
import type { CapturedChange } from '../tools/definition';

/** Notices past this many since the last capture: the whole tree is scanned instead (an `npm install`). */
const MAX_NOTICES = Math.min(4_096, kernelQueueLimit() / 2);
/** A tree of more folders is scanned whole each time: a change notice costs the kernel a watch per folder. */
const MAX_FOLDERS = 20_000;
/** However quiet the notices, the tree is scanned whole at a capture this long after the last whole scan. */
const WHOLE_SCAN_EVERY_MS = 30_000;
/** Blobs of replaced contents kept in the cache before it is pruned to what the tree holds. */
const STALE_BLOBS = 1_024;

/**
 * The kernel drops notices past this many unread (fs.inotify.max_queued_events); a capture that
 * counted half of it scans the whole tree, so notices it never received cannot be missed.
 */
function kernelQueueLimit(): number {
  try {
    return Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim()) || 16_384;
  } catch {
    return 16_384;
  }
}

const isGit = (name: string) => name.toLowerCase() === '.git';
const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
const under = (key: string, dir: string) => key.startsWith(`${dir}/`);

/** How long the kernel may take to hand over a notice before the watchers are taken as failed. */
const NOTICE_TIMEOUT_MS = 5_000;

export interface SandboxWatchOptions {
  /** false: every capture scans the whole tree (as after shell.run), no change notices. */
  watch?: boolean;
}

/**
 * What an agent that writes by itself changed in the sandbox: the tree compared with its last known
 * state each time a tool call settles or a turn ends. The tree is scanned whole once (as after
 * shell.run; the same snapshots); after that the kernel's change notices (a watcher per folder)
 * name the paths to look at again, so a capture costs the files changed rather than the tree. The
 * whole tree is scanned again when a watcher fails, after too many notices, in a tree of too many
 * folders, and every 30 s as a safety net.
 */
export class SandboxWatch {
  private files: TreeSnapshot | null = null;
  private readonly cache = new ContentCache();
  private tail: Promise<unknown> = Promise.resolve();
  /** Watchers by folder (relative, '' the root); null when the tree is not watched. */
  private watchers: Map<string, FSWatcher> | null = null;
  private noticed = new Set<string>();
  private notices = 0;
  private failed = false;
  private lastWholeScan = 0;
  private staleBlobs = 0;
  /** Too many folders, or the kernel out of watches: every capture scans the whole tree. */
  private unwatchable = false;
  /** Contents the last diff may have needed are dropped once it is made. */
  private pruneDue = false;
  /** Resolves when the root's own notice comes: see noticesIn. */
  private marker: (() => void) | null = null;
  private readonly rootName: string;

  constructor(
    private readonly root: string,
    private readonly options: SandboxWatchOptions = {},
  ) {
    this.rootName = path.basename(root);
  }

  /** Takes the state every later change is measured from. */
  async baseline(): Promise<void> {
    await this.serial(async () => {
      await this.refresh();
      if (this.pruneDue || this.staleBlobs > STALE_BLOBS) await this.prune();
    });
  }

  /** The changes since the last state known, which becomes the current one. */
  async changes(): Promise<CapturedChange[]> {
    return this.serial(async () => {
      const known = this.files !== null;
      const { before, after } = await this.refresh();
      if (!known) return [];
      const changes = await diffSnapshots(before, after, this.root, this.cache);
      if (this.pruneDue || this.staleBlobs > STALE_BLOBS) await this.prune();
      return changes;
    });
  }

  /** Brings the snapshot up to date; returns the before and after of what may have changed. */
  private async refresh(): Promise<{ before: TreeSnapshot; after: TreeSnapshot }> {
    await this.noticesIn();
    const whole = !this.files || !this.watchers || this.failed || this.notices > MAX_NOTICES || Date.now() - this.lastWholeScan > WHOLE_SCAN_EVERY_MS;
    if (!whole) {
      try {
        return await this.refreshNoticed();
      } catch {
        // A path that changed again while being looked at, or a folder the kernel would not watch: the whole scan says what is there, watched afresh.
        this.failed = true;
      }
    }
    return this.wholeScan();
  }

  private async wholeScan(): Promise<{ before: TreeSnapshot; after: TreeSnapshot }> {
    const before = this.files ?? new Map<string, FileSnapshot>();
    // Watching starts before the scan: what changes while it runs is noticed, and looked at again next time.
    if (this.options.watch !== false && !this.unwatchable && (!this.watchers || this.failed || this.notices > MAX_NOTICES)) this.startWatching();
    this.noticed = new Set();
    this.notices = 0;
    this.lastWholeScan = Date.now();
    const scan = await scanTree(this.root, { previous: this.files ?? undefined, cache: this.cache });
    this.files = scan.files;
    this.pruneDue = true;
    return { before, after: scan.files };
  }

  /** Only the paths the notices named: files read again, folders (new, gone, replaced) watched and scanned again. */
  private async refreshNoticed(): Promise<{ before: TreeSnapshot; after: TreeSnapshot }> {
    const files = this.files as TreeSnapshot;
    const watchers = this.watchers as Map<string, FSWatcher>;
    const paths = [...this.noticed];
    this.noticed = new Set();
    this.notices = 0;
    const before: TreeSnapshot = new Map();
    const touched = new Set<string>();
    const touch = (key: string) => {
      if (touched.has(key)) return;
      touched.add(key);
      const was = files.get(key);
      if (was) before.set(key, was);
    };
    const closeWatchers = (dir: string) => {
      for (const [folder, watcher] of watchers) {
        if (folder === dir || under(folder, dir)) {
          watcher.close();
          watchers.delete(folder);
        }
      }
    };
    for (const rel of paths) {
      const absolute = path.join(this.root, ...rel.split('/'));
      const hashedAtMs = Date.now();
      const stats = lstatSync(absolute, { throwIfNoEntry: false });
      if (stats?.isDirectory()) {
        // New, or replaced (its watchers may watch a folder gone): watched again before it is read,
        // so nothing written into it meanwhile goes unnoticed; its files compared by stat as a whole scan does.
        closeWatchers(rel);
        this.watchFolder(rel);
        const previous: TreeSnapshot = new Map();
        for (const [key, snapshot] of files) if (under(key, rel)) previous.set(key.slice(rel.length + 1), snapshot);
        const scan = await scanTree(absolute, { previous, cache: this.cache });
        for (const key of previous.keys()) {
          touch(`${rel}/${key}`);
          files.delete(`${rel}/${key}`);
        }
        for (const [key, snapshot] of scan.files) {
          touch(`${rel}/${key}`);
          files.set(`${rel}/${key}`, snapshot);
        }
        if (files.has(rel)) {
          touch(rel);
          files.delete(rel);
        }
        continue;
      }
      if (watchers.has(rel)) {
        // A folder gone, or replaced by a file: what was in it is gone.
        closeWatchers(rel);
        for (const key of [...files.keys()]) {
          if (!under(key, rel)) continue;
          touch(key);
          files.delete(key);
        }
      }
      const content = stats?.isFile() ? await readFileOrNull(absolute) : null;
      if (content === null) {
        if (files.has(rel)) {
          touch(rel);
          files.delete(rel);
        }
        continue;
      }
      touch(rel);
      const hash = sha256(content);
      await this.cache.put(hash, content);
      if (before.has(rel) && before.get(rel)?.hash !== hash) this.staleBlobs += 1;
      files.set(rel, { hash, size: content.length, mtimeMs: stats!.mtimeMs, ctimeMs: stats!.ctimeMs, ino: stats!.ino, mode: stats!.mode & 0o7777, hashedAtMs });
    }
    const after: TreeSnapshot = new Map();
    for (const key of touched) {
      const now = files.get(key);
      if (now) after.set(key, now);
    }
    return { before, after };
  }

  /**
   * Waits until every notice the kernel queued before now has been received: the root's mode set
   * to what it is (its ctime changes, nothing else) makes a notice of the root itself, and the
   * kernel hands over one watch set's notices in the order they happened. A write the agent made
   * before it reported its call settled is then among the notices.
   */
  private async noticesIn(): Promise<void> {
    if (!this.watchers?.has('') || this.failed) return;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((resolve) => {
      this.marker = () => resolve(true);
      timer = setTimeout(() => resolve(false), NOTICE_TIMEOUT_MS);
    });
    try {
      const stats = lstatSync(this.root);
      chmodSync(this.root, stats.mode & 0o7777);
      if (!(await arrived)) this.failed = true;
    } catch {
      this.failed = true;
    } finally {
      clearTimeout(timer);
      this.marker = null;
    }
  }

  /** Watchers on every folder, each set before the folder is read. Past MAX_FOLDERS, or where the kernel refuses one, the tree is scanned whole each time. */
  private startWatching(): void {
    this.stopWatching();
    this.failed = false;
    this.watchers = new Map();
    try {
      this.watchFolder('');
    } catch {
      this.stopWatching();
      this.unwatchable = true;
    }
  }

  private watchFolder(rel: string): void {
    const watchers = this.watchers as Map<string, FSWatcher>;
    const pending = [rel];
    while (pending.length > 0) {
      const dir = pending.pop() as string;
      if (watchers.size >= MAX_FOLDERS) throw new Error('too many folders to watch');
      const absolute = path.join(this.root, ...(dir ? dir.split('/') : []));
      let watcher: FSWatcher;
      try {
        watchers.get(dir)?.close();
        watcher = watch(absolute, { persistent: false }, (_event, name) => this.notice(dir, name));
      } catch (error) {
        // Gone already: its parent's notice says so. Any other refusal (no watches left): scan whole.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
        throw error;
      }
      watcher.on('error', () => {
        this.failed = true;
      });
      watchers.set(dir, watcher);
      let entries: Dirent[];
      try {
        entries = readdirSync(absolute, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) if (entry.isDirectory() && !isGit(entry.name)) pending.push(join(dir, entry.name));
    }
  }

  private notice(dir: string, name: string | Buffer | null): void {
    const text = name === null ? null : name.toString();
    // The root's own notice names the root (see noticesIn); a file of that name in it is looked at as well.
    if (dir === '' && text === this.rootName) this.marker?.();
    if (this.failed || !this.watchers) return;
    this.notices += 1;
    if (this.notices > MAX_NOTICES) {
      this.noticed.clear();
      return;
    }
    // Without a name, something in the folder changed: the folder is looked at whole.
    if (text === null) {
      if (dir === '') this.failed = true;
      else this.noticed.add(dir);
      return;
    }
    if (isGit(text)) return;
    this.noticed.add(join(dir, text));
  }

  private stopWatching(): void {
    for (const watcher of this.watchers?.values() ?? []) watcher.close();
    this.watchers = null;
  }

  /** Drops the contents no file of the tree holds any more. */
  private async prune(): Promise<void> {
    this.staleBlobs = 0;
    this.pruneDue = false;
    await this.cache.retain(new Set([...(this.files ?? new Map()).values()].map((f) => f.hash)));
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  async dispose(): Promise<void> {
    await this.tail.catch(() => undefined);
    this.stopWatching();
    await this.cache.dispose();
  }
}
