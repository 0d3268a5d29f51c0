import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's full garbage collection, without `--expose-gc` on the command line (agents serve has several
 * starters: bin/agents.cjs, the built CLI, tsx, tests). A context made after the flag is set gets a
 * `gc` of its own, which collects the whole heap; our global stays without one.
 */
export function fullGc(): () => void {
  const own = (globalThis as { gc?: () => void }).gc;
  if (typeof own === 'function') return own;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export interface IdleCollectOptions {
  /** Bytes of messages received since the last collection before one is due (default 16 MB). */
  afterBytes?: number;
  /** Quiet time after the last message before the collection runs (default 1 s). */
  idleMs?: number;
  /** The collection (default: V8's full GC). */
  collect?: () => void;
}

/**
 * Runs one full collection once a server goes quiet after receiving a lot. A process that sits idle
 * allocates nothing, so V8 never collects the garbage of the last burst: the messages' buffers (and
 * the memory malloc holds for them) stay until the next burst. Under load V8 collects by itself.
 */
export class IdleCollector {
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly afterBytes: number;
  private readonly idleMs: number;
  private collect: (() => void) | undefined;

  constructor(options: IdleCollectOptions = {}) {
    this.afterBytes = options.afterBytes ?? 16 * 1_048_576;
    this.idleMs = options.idleMs ?? 1_000;
    this.collect = options.collect;
  }

  /** A message of this many bytes came in: the collection, once due, waits for the next quiet spell. */
  received(bytes: number): void {
    this.bytes += bytes;
    if (this.timer) return void this.timer.refresh();
    if (this.bytes < this.afterBytes) return;
    this.timer = setTimeout(() => this.run(), this.idleMs);
    // Nothing to collect in a process that is ending anyway.
    this.timer.unref();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    this.bytes = 0;
    (this.collect ??= fullGc())();
  }
}
