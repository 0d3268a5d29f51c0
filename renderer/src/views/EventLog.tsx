import { memo, useCallback, useMemo, useState } from 'react';
import { STREAM_EVENT_TYPES, type StreamEvent, type StreamEventType } from '../../../shared/events';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { eventText } from '../../../shared/event-text';
import { formatTime } from '../lib/format';
import { findSeq, windowAtHead } from '../store/merge-events';
import { useAppStore } from '../store/react';

const EVENT_ROW_HEIGHT = 24;
/** More than the rows a view ever renders at once (a tall screen's rows plus overscan). */
const ROW_SLOTS = 512;

const EventRow = memo(function EventRow({ event, describe }: { event: StreamEvent; describe: (id: string) => string | undefined }) {
  const { text, tone } = eventText(event, describe);
  return (
    <div className={`event-row tone-${tone}`} data-testid="event-row" data-event-type={event.type} data-seq={event.seq}>
      <span className="event-seq">#{event.seq}</span>
      <time className="event-time" dateTime={event.ts}>
        {formatTime(event.ts)}
      </time>
      <span className="event-type">{event.type}</span>
      <span className="event-text">{text}</span>
    </div>
  );
});

export function EventLog() {
  const events = useAppStore((s) => s.events);
  const status = useAppStore((s) => s.eventsStatus);
  const error = useAppStore((s) => s.eventsError);
  const lastSeq = useAppStore((s) => s.lastSeq);
  const paging = useAppStore((s) => s.eventsPaging);
  const filter = useAppStore((s) => s.eventTypeFilter);
  const setFilter = useAppStore((s) => s.setEventTypeFilter);
  const loadOlder = useAppStore((s) => s.loadOlderEvents);
  const loadNewer = useAppStore((s) => s.loadNewerEvents);
  const showLatest = useAppStore((s) => s.showLatestEvents);
  const decisions = useAppStore((s) => s.decisions);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);
  const [following, setFollowing] = useState(true);

  const shown = useMemo(() => (filter === 'all' ? events : events.filter((e) => e.type === filter)), [events, filter]);
  const describe = useCallback((id: string) => decisions[id]?.description, [decisions]);
  // The store keeps a window of the log: older pages come from the host at its top, newer ones at
  // its bottom when the operator paged so far back that the newest events left the window.
  const atHead = windowAtHead(events, lastSeq);
  const hasOlder = events.length > 0 && events[0].seq > 1;
  const onRange = useCallback(
    (start: number, end: number) => {
      if (start === 0 && hasOlder) void loadOlder();
      if (end >= shown.length && !atHead) void loadNewer();
    },
    [hasOlder, atHead, shown.length, loadOlder, loadNewer],
  );
  const rowKey = useCallback((i: number) => shown[i].seq, [shown]);
  const indexOfKey = useCallback((seq: number | string) => findSeq(shown, Number(seq)), [shown]);
  const follow = () => {
    if (!atHead) void showLatest();
    setFollowing(true);
  };
  const windowNote =
    events.length > 0 && (hasOlder || !atHead) ? ` · #${events[0].seq}–#${events[events.length - 1].seq} of ${lastSeq}` : '';

  return (
    <div className="event-log">
      <div className="toolbar-row">
        <select className="input" aria-label="Show events of type" data-testid="event-filter" value={filter} onChange={(e) => setFilter(e.currentTarget.value as StreamEventType | 'all')}>
          <option value="all">All events</option>
          {STREAM_EVENT_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
        <span className="muted" data-testid="event-count">
          {shown.length} of {events.length} events{windowNote}
        </span>
        {paging && <span className="muted">Loading…</span>}
        <span className="grow" />
        {(!following || !atHead) && (
          <button type="button" className="button small" data-testid="event-follow" onClick={follow}>
            Follow new events
          </button>
        )}
      </div>
      {status === 'error' && <p className="inline-error">Couldn't load the event history: {error}</p>}
      {shown.length === 0 ? (
        status === 'loading' ? (
          <StatePanel kind="loading" title="Loading events…" />
        ) : (
          <StatePanel kind="empty" testId="events-empty" title={events.length === 0 ? 'No events yet — they appear here live as the plan runs.' : 'No events of this type.'}>
            {hasOlder && (
              <button type="button" className="button" disabled={paging} onClick={() => void loadOlder()}>
                Look in older events
              </button>
            )}
          </StatePanel>
        )
      ) : (
        <VirtualList
          count={shown.length}
          rowHeight={EVENT_ROW_HEIGHT}
          follow={following && atHead}
          // Following, the view sits at the end: rows above it would be drawn every frame for nothing.
          overscan={following && atHead ? 1 : 6}
          onAtEndChange={setFollowing}
          onRangeChange={onRange}
          rowKey={rowKey}
          indexOfKey={indexOfKey}
          // Keyed by position, not by seq. While the log follows a stream, every row on screen shows
          // a new event each frame: keyed by its place on screen, React updates the rows' text
          // instead of replacing them all. Scrolled by hand, rows keep their keys as they move.
          renderRow={(i, slot) => <EventRow key={following && atHead ? slot : ROW_SLOTS + (i % ROW_SLOTS)} event={shown[i]} describe={describe} />}
          className="event-list"
          containerProps={{
            role: 'log',
            tabIndex: 0,
            'aria-label': 'Event log',
            'aria-live': 'off',
            'aria-busy': paging || undefined,
            'data-testid': 'event-log',
            'data-last-seq': lastSeq,
            'data-first-seq': events[0]?.seq,
            'data-following': following && atHead,
            'data-region': 'events',
            onFocus: () => setFocusRegion('events'),
          }}
        />
      )}
    </div>
  );
}
