import type { StreamEvent } from '../../../shared/events';
import { errorText } from '../lib/format';
import { appendEvents, MAX_EVENTS, mergeEvents, prependEvents, windowAtHead } from './merge-events';
import type { PlanSession } from './plan-session';
import { track } from './track';
import type { LoadStatus } from './state/load-status';
import type { SliceCreator } from './types';
import type { EventsSlice } from './state/events';

/** Events per request: the newest page when a plan opens, and each older or newer page after. */
export const EVENT_PAGE = 1000;
/** Rounds of catching up when returning to the newest events while they keep arriving. */
const MAX_CATCH_UP_PAGES = 5;

export const initialEventsState = {
  events: [] as StreamEvent[],
  lastSeq: 0,
  eventsStatus: 'idle' as LoadStatus,
  eventsError: null as string | null,
  eventsPaging: false,
};

export const createEventsSlice: SliceCreator<EventsSlice> = (set, get) => {
  const store = { getState: get, setState: set };
  const page = ({ bridge, planId }: PlanSession, afterSeq: number, limit = EVENT_PAGE) =>
    bridge['plans.events']({ planId, afterSeq: Math.max(0, afterSeq), limit: Math.max(1, Math.min(limit, 5000)) });

  /** One paging request for the open plan at a time. */
  const paging = (load: (session: PlanSession) => Promise<void>) => track(store, { busy: 'eventsPaging', error: 'eventsError' }, true, load);

  return {
    ...initialEventsState,
    eventTypeFilter: 'all',
    setEventTypeFilter: (eventTypeFilter) => set({ eventTypeFilter }),

    async loadEventHistory() {
      const session = get().session;
      if (!session) return 0;
      set({ eventsStatus: 'loading', eventsError: null });
      try {
        // The log opens at its end: the newest page, however long the log is.
        const result = await session.bridge['plans.events']({ planId: session.planId, afterSeq: 0, limit: EVENT_PAGE, newest: true });
        // History only fills the log; state comes from snapshots, so old events never roll it back.
        const merged = mergeEvents(get().events, get().lastSeq, result.events);
        set({ events: merged.events, lastSeq: merged.lastSeq, eventsStatus: 'loaded' });
      } catch (error) {
        set({ eventsStatus: 'error', eventsError: errorText(error) });
      }
      return get().lastSeq;
    },

    loadOlderEvents: () =>
      paging(async (session) => {
        const first = get().events[0]?.seq ?? 0;
        if (first <= 1) return;
        const after = Math.max(0, first - 1 - EVENT_PAGE);
        const { events } = await page(session, after, first - 1 - after);
        set({ events: prependEvents(get().events, events, MAX_EVENTS) });
      }),

    loadNewerEvents: () =>
      paging(async (session) => {
        const { events: window, lastSeq } = get();
        if (windowAtHead(window, lastSeq)) return;
        const { events } = await page(session, window[window.length - 1].seq);
        set({ events: appendEvents(get().events, events, MAX_EVENTS) });
      }),

    showLatestEvents: () =>
      paging(async (session) => {
        if (windowAtHead(get().events, get().lastSeq)) return;
        let { events } = await page(session, get().lastSeq - EVENT_PAGE);
        // Events that arrived meanwhile moved lastSeq only: read up to it before joining the stream.
        for (let round = 0; round < MAX_CATCH_UP_PAGES && (events.at(-1)?.seq ?? 0) < get().lastSeq; round++) {
          const next = await page(session, events.at(-1)?.seq ?? 0);
          if (next.events.length === 0) break;
          events = appendEvents(events, next.events, MAX_EVENTS);
        }
        set({ events });
      }),

    async backfillEvents(after, before) {
      const session = get().session;
      if (!session) return;
      try {
        const { events } = await page(session, after, before - after - 1);
        const merged = mergeEvents(get().events, get().lastSeq, events.filter((e) => e.seq < before));
        set({ events: merged.events });
      } catch {
        // The log misses a few lines; the plan's state is unaffected and comes from snapshots.
      }
    },
  };
};
