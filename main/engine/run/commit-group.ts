export interface CommitGroupOptions {
  /** Commit once this many units are queued. */
  maxUnits?: number;
  /** Commit at most this long after the first unit was queued. */
  maxDelayMs?: number;
}

/**
 * Queues units of writes and runs them, in order, in one commit: when `maxUnits` are queued,
 * `maxDelayMs` after the first one, or when `flush` is called. A failed commit is kept and thrown by
 * every later `add` and `flush`, so the run that queued the writes fails rather than going on.
 *
 * Why: a SQLite commit writes every page its rows touched to the WAL; a tool call's bookkeeping
 * (its change entry and blob, its invocation, three events, and their indexes) touches about 16
 * pages, so committing each call costs more than the call's own file I/O. Consecutive calls touch
 * mostly the same pages, so a commit of many calls costs little more than a commit of one.
 */
export class CommitGroup {
  private units: (() => Promise<void>)[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failure: { error: unknown } | null = null;
  /** The commits started so far, in order: each waits for the one before it. */
  private committing: Promise<void> = Promise.resolve();
  private readonly maxUnits: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly commit: (writes: () => Promise<void>) => Promise<void>,
    options: CommitGroupOptions = {},
  ) {
    // A commit runs its units back to back, and the host's event loop must not wait long on one:
    // 96 units (a tool call queues about two) kept the loop's p99 near 22 ms while
    // committing a third as often as 32 (docs/BENCHMARKS.md).
    this.maxUnits = options.maxUnits ?? 96;
    this.maxDelayMs = options.maxDelayMs ?? 20;
  }

  get pending(): number {
    return this.units.length;
  }

  /** Queues a unit; a full group starts its commit without waiting for it (a failure is thrown by the next add or flush). */
  add(unit: () => Promise<void>): void {
    this.throwIfFailed();
    this.units.push(unit);
    if (this.units.length >= this.maxUnits) {
      this.flush().catch(() => {
        // Kept in this.failure; the next add or flush throws it.
      });
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush().catch(() => {
          // Kept in this.failure; the next add or flush throws it.
        });
      }, this.maxDelayMs);
    }
  }

  /** Commits what is queued now; resolves once it (and every commit started before it) is committed. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.failure) return Promise.reject(this.failure.error as Error);
    const units = this.units;
    this.units = [];
    const done = this.committing.then(async () => {
      this.throwIfFailed();
      if (units.length === 0) return;
      try {
        await this.commit(async () => {
          for (const unit of units) await unit();
        });
      } catch (error) {
        this.failure ??= { error };
        throw error;
      }
    });
    this.committing = done.catch(() => {});
    return done;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
