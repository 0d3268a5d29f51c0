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
  private units: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failure: { error: unknown } | null = null;
  private readonly maxUnits: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly commit: (writes: () => void) => void,
    options: CommitGroupOptions = {},
  ) {
    // A commit runs its units synchronously, and the host's event loop must not wait long on one:
    // 96 units (a tool call queues about two) kept the loop's p99 near 22 ms while
    // committing a third as often as 32 (docs/BENCHMARKS.md).
    this.maxUnits = options.maxUnits ?? 96;
    this.maxDelayMs = options.maxDelayMs ?? 20;
  }

  get pending(): number {
    return this.units.length;
  }

  add(unit: () => void): void {
    this.throwIfFailed();
    this.units.push(unit);
    if (this.units.length >= this.maxUnits) {
      this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        try {
          this.flush();
        } catch {
          // Kept in this.failure; the next add or flush throws it.
        }
      }, this.maxDelayMs);
    }
  }

  /** Commits what is queued now. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.throwIfFailed();
    const units = this.units;
    if (units.length === 0) return;
    this.units = [];
    try {
      this.commit(() => {
        for (const unit of units) unit();
      });
    } catch (error) {
      this.failure = { error };
      throw error;
    }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
