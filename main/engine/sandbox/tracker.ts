import { realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../errors';
import type { CapturedChange } from '../tools/definition';
import { ContentCache, type ContentCacheOptions } from './content-cache';
import { resolveInSandbox } from './paths';
import { diffSnapshots, scanTree, type TreeScan } from './snapshot';

export interface RemovedSymlink {
  path: string;
  target: string;
}

export interface TrackedRun<T> {
  outcome: { ok: true; value: T } | { ok: false; error: unknown };
  /** Every file the action created, modified, deleted or moved, whether it succeeded or not. */
  changes: CapturedChange[];
  /** Symlinks the action created (or retargeted) that lead outside the sandbox; they were removed. */
  removedSymlinks: RemovedSymlink[];
}

interface SandboxState {
  scan: TreeScan | null;
  cache: ContentCache;
  /** Tracked actions on one sandbox run one at a time, or their snapshots would interleave. */
  tail: Promise<unknown>;
}

/**
 * Captures what an opaque action (a shell command) does to a sandbox by snapshotting the tree
 * before and after it. The last snapshot and its contents are kept per sandbox, so the next
 * "before" snapshot only reads the files whose stat changed since (the file tools' writes, say).
 */
export class TreeChangeTracker {
  private readonly sandboxes = new Map<string, SandboxState>();

  /** Only the most recently used sandboxes keep their snapshot and contents; a long-lived host runs many plans. */
  constructor(
    private readonly cacheOptions: ContentCacheOptions = {},
    private readonly maxSandboxes = 8,
  ) {}

  async track<T>(sandboxRoot: string, action: () => Promise<T>): Promise<TrackedRun<T>> {
    const root = await realpath(sandboxRoot);
    let state = this.sandboxes.get(root);
    if (state) {
      this.sandboxes.delete(root);
    } else {
      state = { scan: null, cache: new ContentCache(this.cacheOptions), tail: Promise.resolve() };
    }
    this.sandboxes.set(root, state);
    for (const [oldest, evicted] of this.sandboxes) {
      if (this.sandboxes.size <= this.maxSandboxes) break;
      this.sandboxes.delete(oldest);
      void evicted.tail.then(() => evicted.cache.dispose());
    }
    const current = state;
    const run = current.tail.then(() => this.trackNow(root, current, action));
    current.tail = run.catch(() => undefined);
    return run;
  }

  private async trackNow<T>(root: string, state: SandboxState, action: () => Promise<T>): Promise<TrackedRun<T>> {
    const before = await scanTree(root, { previous: state.scan?.files, cache: state.cache });
    state.scan = before;
    let outcome: TrackedRun<T>['outcome'];
    try {
      outcome = { ok: true, value: await action() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const after = await scanTree(root, { previous: before.files, cache: state.cache });
    const changes = await diffSnapshots(before.files, after.files, root, state.cache);
    state.scan = after;
    await state.cache.retain(new Set([...after.files.values()].map((f) => f.hash)));

    const removedSymlinks: RemovedSymlink[] = [];
    // Sorted, so the report does not depend on the order the directory walk happened to finish in.
    for (const [rel, target] of [...after.symlinks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (before.symlinks.get(rel) === target) continue;
      try {
        await resolveInSandbox(root, rel);
      } catch (error) {
        if (!(error instanceof EngineError) || error.category !== 'policy') continue;
        await unlink(path.join(root, ...rel.split('/')));
        after.symlinks.delete(rel);
        removedSymlinks.push({ path: rel, target });
      }
    }
    return { outcome, changes, removedSymlinks };
  }

  /** Drops what is kept for one sandbox (call when the sandbox is removed). */
  async forget(sandboxRoot: string): Promise<void> {
    const root = await realpath(sandboxRoot).catch(() => sandboxRoot);
    const state = this.sandboxes.get(root);
    this.sandboxes.delete(root);
    await state?.cache.dispose();
  }

  async dispose(): Promise<void> {
    const states = [...this.sandboxes.values()];
    this.sandboxes.clear();
    await Promise.all(states.map((s) => s.cache.dispose()));
  }
}
