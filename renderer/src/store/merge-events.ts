import type { StreamEvent } from '../../../shared/events';

/**
 * Most events the renderer keeps for the open plan: a window onto its log, however long the log
 * is. Opening a plan loads the newest page; older pages are read from the host as the operator
 * scrolls up, and the window drops events at its other end to stay this size.
 */
export const MAX_EVENTS = 10_000;

export interface MergeResult {
  events: StreamEvent[];
  lastSeq: number;
  /** Events newer than anything seen before, in seq order: these move the plan's state. */
  appended: StreamEvent[];
  /** Set when seqs were skipped: the range (after, before) exclusive is missing. */
  gap: { after: number; before: number } | null;
}

function indexOfSeq(events: readonly StreamEvent[], seq: number): { found: boolean; index: number } {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return { found: lo < events.length && events[lo].seq === seq, index: lo };
}

/** The index of the event with this seq in a seq-ordered window, or -1. */
export function findSeq(events: readonly StreamEvent[], seq: number): number {
  const { found, index } = indexOfSeq(events, seq);
  return found ? index : -1;
}

/**
 * True when the window reaches the newest event seen: new events then join it. After the operator
 * paged far back, the window stops short of it ("detached") and new events only move `lastSeq`.
 */
export function windowAtHead(events: readonly StreamEvent[], lastSeq: number): boolean {
  return events.length === 0 || events[events.length - 1].seq >= lastSeq;
}

/**
 * Merges events into a seq-ordered window without duplicates. Events after `lastSeq` are appended
 * (when the window is at the head; otherwise they only advance `lastSeq`); older ones (a backfill)
 * are inserted where they belong. The window keeps at most `max` events, dropping the oldest.
 */
export function mergeEvents(existing: readonly StreamEvent[], lastSeq: number, incoming: readonly StreamEvent[], max = MAX_EVENTS): MergeResult {
  if (incoming.length === 0) return { events: existing as StreamEvent[], lastSeq, appended: [], gap: null };
  const sorted = incoming.length > 1 ? [...incoming].sort((a, b) => a.seq - b.seq) : incoming;
  const atHead = windowAtHead(existing, lastSeq);
  const events = existing.slice();
  const appended: StreamEvent[] = [];
  let gap: MergeResult['gap'] = null;
  let last = lastSeq;
  for (const event of sorted) {
    if (event.seq > last) {
      if (atHead) {
        if (event.seq > last + 1 && gap === null) gap = { after: last, before: event.seq };
        events.push(event);
      }
      appended.push(event);
      last = event.seq;
    } else {
      // A backfill. A window that stopped short of the head takes none beyond its end (paged in later).
      const { found, index } = indexOfSeq(events, event.seq);
      if (!found && (atHead || index < events.length)) events.splice(index, 0, event);
    }
  }
  if (events.length > max) events.splice(0, events.length - max);
  return { events, lastSeq: last, appended, gap };
}

/** Puts an older page in front of the window; keeps `max` events, dropping the newest. */
export function prependEvents(existing: readonly StreamEvent[], older: readonly StreamEvent[], max = MAX_EVENTS): StreamEvent[] {
  const first = existing.length > 0 ? existing[0].seq : Infinity;
  const events = [...older.filter((e) => e.seq < first).sort((a, b) => a.seq - b.seq), ...existing];
  return events.length > max ? events.slice(0, max) : events;
}

/** Puts a newer page after the window; keeps `max` events, dropping the oldest. */
export function appendEvents(existing: readonly StreamEvent[], newer: readonly StreamEvent[], max = MAX_EVENTS): StreamEvent[] {
  const last = existing.length > 0 ? existing[existing.length - 1].seq : -Infinity;
  const events = [...existing, ...newer.filter((e) => e.seq > last).sort((a, b) => a.seq - b.seq)];
  return events.length > max ? events.slice(events.length - max) : events;
}
