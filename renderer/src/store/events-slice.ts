import type { StreamEvent, StreamEventType } from '../../../shared/events';
import { errorText } from '../lib/format';
import { appendEvents, MAX_EVENTS, mergeEvents, prependEvents, windowAtHead } from './merge-events';
import type { LoadStatus, SliceCreator } from './types';

/** Events per request: the newest page when a plan opens, and each older or newer page after. */
export const EVENT_PAGE = 1000;
/** Rounds of catching up when returning to the newest events while they keep arriving. */
const MAX_CATCH_UP_PAGES = 5;

export interface EventsSlice {
  /** A window of at most MAX_EVENTS of the open plan's events, in seq order. */
  events: StreamEvent[];
  /** The newest seq seen; the window ends before it when the operator paged far back. */
  lastSeq: number;
  eventsStatus: LoadStatus;
  eventsError: string | null;
  /** A page of older or newer events is on its way. */
  eventsPaging: boolean;
  eventTypeFilter: StreamEventType | 'all';
  setEventTypeFilter(filter: StreamEventType | 'all'): void;
  /** Loads the open plan's newest stored events; resolves with the last seq loaded. */
  loadEventHistory(planId: string): Promise<number>;
  /** Reads the page before the window from the host (the operator scrolled to its top). */
  loadOlderEvents(): Promise<void>;
  /** Reads the page after a window that stopped short of the newest events. */
  loadNewerEvents(): Promise<void>;
  /** Moves the window back to the newest events. */
  showLatestEvents(): Promise<void>;
  /** Fetches events skipped between two seqs (a gap seen in the live stream). */
  backfillEvents(planId: string, after: number, before: number): Promise<void>;
}

export const initialEventsState = {
  events: [] as StreamEvent[],
  lastSeq: 0,
  eventsStatus: 'idle' as LoadStatus,
  eventsError: null as string | null,
  eventsPaging: false,
};

export const createEventsSlice: SliceCreator<EventsSlice> = (set, get, deps) => {
  const page = (planId: string, afterSeq: number, limit = EVENT_PAGE) =>
    deps.bridge['plans.events']({ planId, afterSeq: Math.max(0, afterSeq), limit: Math.max(1, Math.min(limit, 5000)) });

  /** Runs one paging request for the open plan at a time; drops its result if the plan changed. */
  const paging = async (load: (planId: string) => Promise<void>) => {
    const planId = get().planId;
    if (!planId || get().eventsPaging) return;
    set({ eventsPaging: true });
    try {
      await load(planId);
    } catch (error) {
      if (get().planId === planId) set({ eventsError: errorText(error) });
    } finally {
      if (get().planId === planId) set({ eventsPaging: false });
    }
  };

  return {
    ...initialEventsState,
    eventTypeFilter: 'all',
    setEventTypeFilter: (eventTypeFilter) => set({ eventTypeFilter }),

    async loadEventHistory(planId) {
      set({ eventsStatus: 'loading', eventsError: null });
      try {
        // The log opens at its end: the newest page, however long the log is.
        const result = await deps.bridge['plans.events']({ planId, afterSeq: 0, limit: EVENT_PAGE, newest: true });
        if (get().planId !== planId) return 0;
        // History only fills the log; state comes from snapshots, so old events never roll it back.
        const merged = mergeEvents(get().events, get().lastSeq, result.events);
        set({ events: merged.events, lastSeq: merged.lastSeq, eventsStatus: 'loaded' });
      } catch (error) {
        if (get().planId === planId) set({ eventsStatus: 'error', eventsError: errorText(error) });
      }
      return get().planId === planId ? get().lastSeq : 0;
    },

    loadOlderEvents: () =>
      paging(async (planId) => {
        const first = get().events[0]?.seq ?? 0;
        if (first <= 1) return;
        const after = Math.max(0, first - 1 - EVENT_PAGE);
        const { events } = await page(planId, after, first - 1 - after);
        if (get().planId !== planId) return;
        set({ events: prependEvents(get().events, events, MAX_EVENTS) });
      }),

    loadNewerEvents: () =>
      paging(async (planId) => {
        const { events: window, lastSeq } = get();
        if (windowAtHead(window, lastSeq)) return;
        const { events } = await page(planId, window[window.length - 1].seq);
        if (get().planId !== planId) return;
        set({ events: appendEvents(get().events, events, MAX_EVENTS) });
      }),

    showLatestEvents: () =>
      paging(async (planId) => {
        if (windowAtHead(get().events, get().lastSeq)) return;
        let { events } = await page(planId, get().lastSeq - EVENT_PAGE);
        // Events that arrived meanwhile moved lastSeq only: read up to it before joining the stream.
        for (let round = 0; round < MAX_CATCH_UP_PAGES && get().planId === planId && (events.at(-1)?.seq ?? 0) < get().lastSeq; round++) {
          const next = await page(planId, events.at(-1)?.seq ?? 0);
          if (next.events.length === 0) break;
          events = appendEvents(events, next.events, MAX_EVENTS);
        }
        if (get().planId !== planId) return;
        set({ events });
      }),

    async backfillEvents(planId, after, before) {
      try {
        const { events } = await page(planId, after, before - after - 1);
        if (get().planId !== planId) return;
        const merged = mergeEvents(get().events, get().lastSeq, events.filter((e) => e.seq < before));
        set({ events: merged.events });
      } catch {
        // The log misses a few lines; the plan's state is unaffected and comes from snapshots.
      }
    },
  };
};
