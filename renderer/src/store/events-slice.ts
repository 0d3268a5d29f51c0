import type { StreamEvent, StreamEventType } from '../../../shared/events';
import { errorText } from '../lib/format';
import { mergeEvents } from './merge-events';
import type { LoadStatus, SliceCreator } from './types';

const PAGE = 5000;
const MAX_HISTORY_PAGES = 10;

export interface EventsSlice {
  events: StreamEvent[];
  lastSeq: number;
  eventsStatus: LoadStatus;
  eventsError: string | null;
  eventTypeFilter: StreamEventType | 'all';
  setEventTypeFilter(filter: StreamEventType | 'all'): void;
  /** Loads the open plan's stored events; resolves with the last seq loaded. */
  loadEventHistory(planId: string): Promise<number>;
  /** Fetches events skipped between two seqs (a gap seen in the live stream). */
  backfillEvents(planId: string, after: number, before: number): Promise<void>;
}

export const initialEventsState = {
  events: [] as StreamEvent[],
  lastSeq: 0,
  eventsStatus: 'idle' as LoadStatus,
  eventsError: null as string | null,
};

export const createEventsSlice: SliceCreator<EventsSlice> = (set, get, deps) => ({
  ...initialEventsState,
  eventTypeFilter: 'all',
  setEventTypeFilter: (eventTypeFilter) => set({ eventTypeFilter }),

  async loadEventHistory(planId) {
    set({ eventsStatus: 'loading', eventsError: null });
    let afterSeq = 0;
    try {
      for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
        const { events } = await deps.bridge['plans.events']({ planId, afterSeq, limit: PAGE });
        if (get().planId !== planId) return afterSeq;
        // History only fills the log; state comes from snapshots, so old events never roll it back.
        const merged = mergeEvents(get().events, get().lastSeq, events);
        set({ events: merged.events, lastSeq: merged.lastSeq });
        afterSeq = events.at(-1)?.seq ?? afterSeq;
        if (events.length < PAGE) break;
      }
      set({ eventsStatus: 'loaded' });
    } catch (error) {
      if (get().planId === planId) set({ eventsStatus: 'error', eventsError: errorText(error) });
    }
    return get().planId === planId ? get().lastSeq : afterSeq;
  },

  async backfillEvents(planId, after, before) {
    try {
      const { events } = await deps.bridge['plans.events']({ planId, afterSeq: after, limit: Math.min(PAGE, Math.max(1, before - after - 1)) });
      if (get().planId !== planId) return;
      const merged = mergeEvents(get().events, get().lastSeq, events.filter((e) => e.seq < before));
      set({ events: merged.events });
    } catch {
      // The log misses a few lines; the plan's state is unaffected and comes from snapshots.
    }
  },
});
