import { constants, PerformanceObserver } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fullGc, IdleCollector } from './idle-collect';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('IdleCollector', () => {
  // Time is the test's own here, so a loaded machine cannot stretch a quiet spell.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collects once, after the server has been quiet for idleMs following afterBytes of messages', () => {
    let collections = 0;
    const idle = new IdleCollector({ afterBytes: 1_000, idleMs: 300, collect: () => (collections += 1) });
    idle.received(600);
    vi.advanceTimersByTime(600);
    expect(collections).toBe(0); // not enough received yet
    idle.received(600);
    // Messages keep coming: the collection waits for the quiet spell.
    for (let i = 0; i < 6; i += 1) {
      vi.advanceTimersByTime(200);
      idle.received(10);
    }
    expect(collections).toBe(0);
    vi.advanceTimersByTime(299);
    expect(collections).toBe(0);
    vi.advanceTimersByTime(1);
    expect(collections).toBe(1);
    // Counted afresh after a collection: a trickle below afterBytes collects nothing more.
    idle.received(500);
    vi.advanceTimersByTime(700);
    expect(collections).toBe(1);
    idle.received(500);
    vi.advanceTimersByTime(700);
    expect(collections).toBe(2);
    idle.dispose();
  });

  it('collects nothing once disposed', () => {
    let collections = 0;
    const idle = new IdleCollector({ afterBytes: 10, idleMs: 100, collect: () => (collections += 1) });
    idle.received(100);
    idle.dispose();
    vi.advanceTimersByTime(1_000);
    expect(collections).toBe(0);
  });
});

describe('fullGc', () => {
  it("is what IdleCollector runs by default: V8's full collection, forced (as perf_hooks' gc entries tell)", async () => {
    const forced: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const detail = (entry as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
        if (detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR && detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced.push(entry.startTime);
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      const idle = new IdleCollector({ afterBytes: 1, idleMs: 50 });
      idle.received(1);
      // Entries are delivered a little after the collection.
      for (let waited = 0; forced.length === 0 && waited < 10_000; waited += 50) await sleep(50);
      expect(forced).toHaveLength(1);
      expect(typeof fullGc()).toBe('function');
      idle.dispose();
    } finally {
      observer.disconnect();
    }
  });
});
