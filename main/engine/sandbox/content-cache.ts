import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ContentCacheOptions {
  /** Bytes kept in memory; blobs beyond it spill to a private temporary directory. Default 256 MiB. */
  maxMemoryBytes?: number;
}

/**
 * File contents by sha256, so that the "before" side of a change a shell command made can be
 * produced after the fact. Content-addressed: a tree of identical files costs one blob, and an
 * unchanged file costs nothing between snapshots. `retain` drops what the latest snapshot no longer uses.
 */
export class ContentCache {
  private readonly memory = new Map<string, Buffer>();
  private readonly spilled = new Set<string>();
  private memoryBytes = 0;
  private spillDir: string | null = null;
  private readonly maxMemoryBytes: number;

  constructor(options: ContentCacheOptions = {}) {
    this.maxMemoryBytes = options.maxMemoryBytes ?? 256 * 1024 * 1024;
  }

  has(hash: string): boolean {
    return this.memory.has(hash) || this.spilled.has(hash);
  }

  async put(hash: string, content: Buffer): Promise<void> {
    if (this.has(hash)) return;
    if (this.memoryBytes + content.length <= this.maxMemoryBytes) {
      this.memory.set(hash, content);
      this.memoryBytes += content.length;
      return;
    }
    this.spillDir ??= await mkdtemp(path.join(tmpdir(), 'agents-blobs-'));
    await writeFile(path.join(this.spillDir, hash), content);
    this.spilled.add(hash);
  }

  async get(hash: string): Promise<Buffer | null> {
    const inMemory = this.memory.get(hash);
    if (inMemory) return inMemory;
    if (this.spillDir && this.spilled.has(hash)) return readFile(path.join(this.spillDir, hash));
    return null;
  }

  /** Forgets every blob whose hash is not in `keep`. */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    for (const [hash, content] of this.memory) {
      if (keep.has(hash)) continue;
      this.memory.delete(hash);
      this.memoryBytes -= content.length;
    }
    for (const hash of this.spilled) {
      if (keep.has(hash)) continue;
      this.spilled.delete(hash);
      if (this.spillDir) await unlink(path.join(this.spillDir, hash)).catch(() => undefined);
    }
  }

  get stats(): { blobs: number; memoryBytes: number; spilledBlobs: number } {
    return { blobs: this.memory.size + this.spilled.size, memoryBytes: this.memoryBytes, spilledBlobs: this.spilled.size };
  }

  async dispose(): Promise<void> {
    this.memory.clear();
    this.spilled.clear();
    this.memoryBytes = 0;
    if (this.spillDir) await rm(this.spillDir, { recursive: true, force: true });
    this.spillDir = null;
  }
}
