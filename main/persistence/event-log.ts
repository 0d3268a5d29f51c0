import { parseOrThrow } from '../../shared/errors';
import { type EventData, STREAM_EVENT_TYPES, type StreamEvent, type StreamEventOf, StreamEventSchema, type StreamEventType } from '../../shared/events';
import type { EventLog } from '../engine/ports/event-stream';
import type { SqliteDatabase } from './database';
import { fromJson, isConstraintError, prepare, toJson, unitMemo, writeTransaction, type Statement, connectionOf, type SqliteConnection } from './sql';

interface EventRow {
  plan_id: string;
  seq: number;
  ts: string;
  type: string;
  data: string;
}

const EVENT_TYPES: ReadonlySet<unknown> = new Set(STREAM_EVENT_TYPES);

/**
 * A well-formed event, checked field by field (what StreamEventSchema checks, at a fraction of the
 * cost of a parse on every append); anything else goes through the schema for its error message.
 */
function isStreamEvent(value: { planId: unknown; seq: unknown; ts: unknown; type: unknown; data: unknown }): value is StreamEvent {
  return (
    typeof value.planId === 'string' && value.planId !== '' &&
    Number.isSafeInteger(value.seq) && (value.seq as number) > 0 &&
    typeof value.ts === 'string' &&
    EVENT_TYPES.has(value.type) &&
    typeof value.data === 'object' && value.data !== null && !Array.isArray(value.data)
  );
}

/** Stream events in SQLite, keyed (plan_id, seq): a seq can be stored once per plan. */
export class SqliteEventLog implements EventLog {
  private readonly insert: Statement<[string, number, string, string, string]>;
  private readonly select: Statement<[string, number, number], EventRow>;
  private readonly selectLastSeq: Statement<[string], { seq: number | null }>;
  private readonly selectLastSeqs: Statement<[], { plan_id: string; seq: number | null }>;
  private readonly selectDataVersion: Statement<[], { data_version: number }>;
  private readonly appendNextTx: (planId: string, type: StreamEventType, data: object) => StreamEvent;

  private readonly connection: SqliteConnection;

  constructor(readonly db: SqliteDatabase) {
    this.connection = connectionOf(db);
    this.insert = prepare(db, 'INSERT INTO events (plan_id, seq, ts, type, data) VALUES (?, ?, ?, ?, ?)');
    this.select = prepare(db, 'SELECT plan_id, seq, ts, type, data FROM events WHERE plan_id = ? AND seq > ? ORDER BY seq LIMIT ?');
    this.selectLastSeq = prepare(db, 'SELECT MAX(seq) AS seq FROM events WHERE plan_id = ?');
    // One index probe per plan rather than a scan of every event (GROUP BY would read them all).
    this.selectLastSeqs = prepare(db, 'SELECT id AS plan_id, (SELECT MAX(seq) FROM events WHERE plan_id = plans.id) AS seq FROM plans');
    this.selectDataVersion = prepare(db, 'PRAGMA data_version');
    this.appendNextTx = writeTransaction(db, (planId: string, type: StreamEventType, data: object) => {
      // A run's commit appends hundreds of events to one plan: inside a unit the last seq is remembered.
      const memo = unitMemo(db);
      const key = `events.lastSeq:${planId}`;
      const last = (memo?.get(key) as number | undefined) ?? (this.selectLastSeq.get(planId)?.seq ?? 0);
      const candidate = { planId, seq: last + 1, ts: new Date().toISOString(), type, data };
      const event = isStreamEvent(candidate) ? candidate : parseOrThrow(StreamEventSchema, candidate, 'event');
      this.write(event);
      memo?.set(key, event.seq);
      return event;
    });
  }

  append(event: StreamEvent): Promise<void> {
    return this.connection.run(() => {
      this.write(parseOrThrow(StreamEventSchema, event, 'event'));
      unitMemo(this.db)?.delete(`events.lastSeq:${event.planId}`);
    });
  }

  /**
   * Gives the event the plan's next seq and stores it, atomically. Unlike an EventPublisher's
   * cached counter, this stays correct when another process appends to the same plan.
   */
  appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>> {
    return this.connection.run(() => this.appendNextTx(planId, type, data) as StreamEventOf<T>);
  }

  list(planId: string, afterSeq = 0, limit?: number): Promise<StreamEvent[]> {
    return this.connection.run(() => {
      // SQLite takes a negative LIMIT as "no limit"; MAX_SAFE_INTEGER and the like mean the same.
      const max = limit === undefined || !Number.isSafeInteger(limit) ? -1 : Math.max(0, limit);
      return this.select.all(planId, afterSeq, max).map(readEvent);
    });
  }

  lastSeq(planId: string): Promise<number> {
    return this.connection.run(() => this.selectLastSeq.get(planId)?.seq ?? 0);
  }

  /** Changes when another connection commits (SQLite's data_version); this connection's own commits leave it alone. */
  externalVersion(): Promise<number> {
    return this.connection.run(() => this.selectDataVersion.get()?.data_version ?? 0);
  }

  lastSeqs(): Promise<Map<string, number>> {
    return this.connection.run(() => {
      const seqs = new Map<string, number>();
      for (const row of this.selectLastSeqs.all()) if (row.seq !== null) seqs.set(row.plan_id, row.seq);
      return seqs;
    });
  }

  private write(event: StreamEvent): void {
    try {
      this.insert.run(event.planId, event.seq, event.ts, event.type, toJson(event.data));
    } catch (error) {
      if (isConstraintError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
        throw new Error(`event seq ${event.seq} of plan ${event.planId} is already stored (another writer appended to this plan)`);
      }
      throw error;
    }
  }
}

function readEvent(row: EventRow): StreamEvent {
  return parseOrThrow(
    StreamEventSchema,
    { planId: row.plan_id, seq: row.seq, ts: row.ts, type: row.type, data: fromJson(row.data) },
    `events[${row.plan_id}#${row.seq}]`,
  );
}
