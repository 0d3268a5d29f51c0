import type { Bridge, ChangeEntryMeta } from '../../../shared/contract';
import { coalesce } from '../lib/coalesce';

type CoalesceOptions = Parameters<typeof coalesce>[1];

/** What the changes slice keeps about its requests in flight, for the open plan only. */
export interface ChangesBookkeeping {
  /** Entries that arrived while the list was loading: applied over the snapshot once it is in. */
  arrivedWhileLoading: ChangeEntryMeta[];
  /** Entries pushed while the review was being asked for: its answer may not hold them yet. */
  pushedSinceAsked: ChangeEntryMeta[];
  /** Reviews asked for and not answered yet. */
  asking: number;
  /** Whether the review has been read for this plan: pushed entries fold into nothing before. */
  reviewLoaded: boolean;
  /** The ids of `listedFrom`, the list they were taken from (rebuilt when the list is replaced). */
  listed: Set<string>;
  listedFrom: readonly ChangeEntryMeta[];
}

/**
 * Everything that belongs to one open plan besides its state in the store: its requests, its
 * subscription and its bookkeeping. Opening another plan closes it: its requests are dropped
 * (their answers and failures never reach the store, so no code after a call asks whether the
 * plan is still the open one), its subscription ends, and its timers run nothing.
 */
export class PlanSession {
  private readonly controller = new AbortController();
  private readonly teardowns: (() => void)[] = [];
  private readonly tasks = new Map<string, () => void>();
  /** The bridge, for this plan's requests: once the session is closed, their promises never settle. */
  readonly bridge: Bridge;
  readonly changes: ChangesBookkeeping = { arrivedWhileLoading: [], pushedSinceAsked: [], asking: 0, reviewLoaded: false, listed: new Set(), listedFrom: [] };
  /** The history is loaded and the plan's snapshot has not come yet: what the history says waits for it. */
  deriveWhenPlanLoads = false;

  constructor(
    readonly planId: string,
    bridge: Bridge,
  ) {
    const signal = this.controller.signal;
    const guard = <T>(call: Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        call.then(
          (value) => {
            if (!signal.aborted) resolve(value);
          },
          (error: unknown) => {
            if (!signal.aborted) reject(error);
          },
        );
      });
    this.bridge = new Proxy(bridge, {
      get: (target, key: keyof Bridge) => {
        const member = target[key] as (...args: unknown[]) => unknown;
        if (key === 'subscribe') return member.bind(target);
        return (request: unknown) => guard(member.call(target, request) as Promise<unknown>);
      },
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get closed(): boolean {
    return this.controller.signal.aborted;
  }

  /** Runs `teardown` when the session closes (at once if it is closed). */
  onClose(teardown: () => void): void {
    if (this.closed) teardown();
    else this.teardowns.push(teardown);
  }

  /**
   * The trigger of a refresh of this session, coalesced (lib/coalesce): one per `key`, made on first
   * use. A trigger that fires after the session closed runs nothing.
   */
  task(key: string, run: (session: PlanSession) => Promise<void>, options?: CoalesceOptions): () => void {
    let trigger = this.tasks.get(key);
    if (!trigger) {
      trigger = coalesce(() => (this.closed ? Promise.resolve() : run(this)), options);
      this.tasks.set(key, trigger);
    }
    return trigger;
  }

  close(): void {
    if (this.closed) return;
    this.controller.abort();
    for (const teardown of this.teardowns.splice(0)) teardown();
    this.tasks.clear();
  }
}
