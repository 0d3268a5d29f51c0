import type { StreamEvent, StreamEventType } from '../../../../shared/events';
import type { LoadStatus } from './load-status';

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
  loadEventHistory(): Promise<number>;
  /** Reads the page before the window from the host (the operator scrolled to its top). */
  loadOlderEvents(): Promise<void>;
  /** Reads the page after a window that stopped short of the newest events. */
  loadNewerEvents(): Promise<void>;
  /** Moves the window back to the newest events. */
  showLatestEvents(): Promise<void>;
  /** Fetches events skipped between two seqs (a gap seen in the live stream). */
  backfillEvents(after: number, before: number): Promise<void>;
}
