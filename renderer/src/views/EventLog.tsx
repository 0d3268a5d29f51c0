import { useCallback, useMemo, useState } from 'react';
import { STREAM_EVENT_TYPES, type StreamEvent, type StreamEventType } from '../../../shared/events';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { summarizeEvent } from '../lib/event-summary';
import { formatTime } from '../lib/format';
import { useAppStore } from '../store/react';

const EVENT_ROW_HEIGHT = 24;

function EventRow({ event, describe }: { event: StreamEvent; describe: (id: string) => string | undefined }) {
  const { text, tone } = summarizeEvent(event, describe);
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
}

export function EventLog() {
  const events = useAppStore((s) => s.events);
  const status = useAppStore((s) => s.eventsStatus);
  const error = useAppStore((s) => s.eventsError);
  const lastSeq = useAppStore((s) => s.lastSeq);
  const filter = useAppStore((s) => s.eventTypeFilter);
  const setFilter = useAppStore((s) => s.setEventTypeFilter);
  const decisions = useAppStore((s) => s.decisions);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);
  const [following, setFollowing] = useState(true);

  const shown = useMemo(() => (filter === 'all' ? events : events.filter((e) => e.type === filter)), [events, filter]);
  const describe = useCallback((id: string) => decisions[id]?.description, [decisions]);

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
          {shown.length} of {events.length} events
        </span>
        <span className="grow" />
        {!following && (
          <button type="button" className="button small" data-testid="event-follow" onClick={() => setFollowing(true)}>
            Follow new events
          </button>
        )}
      </div>
      {status === 'error' && <p className="inline-error">Couldn't load the event history: {error}</p>}
      {shown.length === 0 ? (
        status === 'loading' ? (
          <StatePanel kind="loading" title="Loading events…" />
        ) : (
          <StatePanel kind="empty" testId="events-empty" title={events.length === 0 ? 'No events yet — they appear here live as the plan runs.' : 'No events of this type.'} />
        )
      ) : (
        <VirtualList
          count={shown.length}
          rowHeight={EVENT_ROW_HEIGHT}
          follow={following}
          onAtEndChange={setFollowing}
          renderRow={(i) => <EventRow key={shown[i].seq} event={shown[i]} describe={describe} />}
          className="event-list"
          containerProps={{
            role: 'log',
            tabIndex: 0,
            'aria-label': 'Event log',
            'aria-live': 'off',
            'data-testid': 'event-log',
            'data-last-seq': lastSeq,
            'data-following': following,
            'data-region': 'events',
            onFocus: () => setFocusRegion('events'),
          }}
        />
      )}
    </div>
  );
}
