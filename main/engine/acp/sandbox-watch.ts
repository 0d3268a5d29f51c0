import { ContentCache } from '../sandbox/content-cache';
import { diffSnapshots, scanTree, type TreeScan } from '../sandbox/snapshot';
import type { CapturedChange } from '../tools/definition';

/**
 * What an agent that writes by itself changed in the sandbox: the tree compared with its last known
 * state (as after shell.run; the same snapshots), each time a tool call settles or a turn ends. Only
 * the files whose stat changed since are read again.
 */
export class SandboxWatch {
  private scan: TreeScan | null = null;
  private readonly cache = new ContentCache();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly root: string) {}

  /** Takes the state every later change is measured from. */
  async baseline(): Promise<void> {
    await this.serial(async () => {
      this.scan = await scanTree(this.root, { previous: this.scan?.files, cache: this.cache });
    });
  }

  /** The changes since the last state known, which becomes the current one. */
  async changes(): Promise<CapturedChange[]> {
    return this.serial(async () => {
      const before = this.scan ?? (await scanTree(this.root, { cache: this.cache }));
      const after = await scanTree(this.root, { previous: before.files, cache: this.cache });
      const changes = await diffSnapshots(before.files, after.files, this.root, this.cache);
      this.scan = after;
      await this.cache.retain(new Set([...after.files.values()].map((f) => f.hash)));
      return changes;
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  async dispose(): Promise<void> {
    await this.tail;
    await this.cache.dispose();
  }
}
