import type { StreamEvent } from '../../../shared/events';

/** Most events kept for the open plan; older ones drop off the front of the log. */
export const MAX_EVENTS = 50_000;

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

/**
 * Merges events into a seq-ordered log without duplicates. Events after `lastSeq` are appended;
 * older ones (a backfill) are inserted where they belong.
 */
export function mergeEvents(existing: readonly StreamEvent[], lastSeq: number, incoming: readonly StreamEvent[]): MergeResult {
  if (incoming.length === 0) return { events: existing as StreamEvent[], lastSeq, appended: [], gap: null };
  const sorted = [...incoming].sort((a, b) => a.seq - b.seq);
  const events = existing.slice();
  const appended: StreamEvent[] = [];
  let gap: MergeResult['gap'] = null;
  let last = lastSeq;
  for (const event of sorted) {
    if (event.seq > last) {
      if (event.seq > last + 1 && gap === null) gap = { after: last, before: event.seq };
      events.push(event);
      appended.push(event);
      last = event.seq;
    } else {
      const { found, index } = indexOfSeq(events, event.seq);
      if (!found) events.splice(index, 0, event);
    }
  }
  if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
  return { events, lastSeq: last, appended, gap };
}
