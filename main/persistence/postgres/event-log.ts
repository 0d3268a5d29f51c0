import type { EventLog } from '../../engine/ports/event-stream';
import { parseOrThrow } from '../../../shared/errors';
import { type EventData, type StreamEvent, type StreamEventOf, StreamEventSchema, type StreamEventType } from '../../../shared/events';
import { isUniqueViolation, type PgDatabase, toJsonParam } from './database';

interface EventRow {
  plan_id: string;
  seq: number;
  ts: string;
  type: string;
  data: unknown;
}

/**
 * Stream events in PostgreSQL, keyed (plan_id, seq). A plan's last seq is a row of event_seqs:
 * appendNext bumps it in an upsert, whose row lock makes appenders of one plan (in any process)
 * wait for each other's transactions, so each gets the next seq and none is given twice.
 */
export class PgEventLog implements EventLog {
  constructor(readonly db: PgDatabase) {}

  async append(event: StreamEvent): Promise<void> {
    const valid = parseOrThrow(StreamEventSchema, event, 'event');
    await this.write(
      `WITH counter AS (
         INSERT INTO event_seqs (plan_id, last_seq) VALUES ($1, $2)
         ON CONFLICT (plan_id) DO UPDATE SET last_seq = GREATEST(event_seqs.last_seq, excluded.last_seq))
       INSERT INTO events (plan_id, seq, ts, type, data) VALUES ($1, $2, $3, $4, $5::json) RETURNING seq`,
      valid,
    );
  }

  /**
   * Gives the event the plan's next seq and stores it in one statement (so atomically, and in one
   * round trip), whoever else appends to the plan.
   */
  async appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>> {
    // Checked before the seq is known (the schema only asks it be positive); seq 1 is also a new plan's first.
    const candidate = parseOrThrow(StreamEventSchema, { planId, seq: 1, ts: new Date().toISOString(), type, data }, 'event');
    const seq = await this.write(
      `WITH counter AS (
         INSERT INTO event_seqs (plan_id, last_seq) VALUES ($1, $2)
         ON CONFLICT (plan_id) DO UPDATE SET last_seq = event_seqs.last_seq + 1 RETURNING last_seq)
       INSERT INTO events (plan_id, seq, ts, type, data) SELECT $1, last_seq, $3, $4, $5::json FROM counter RETURNING seq`,
      candidate,
    );
    return { ...candidate, seq } as StreamEventOf<T>;
  }

  async list(planId: string, afterSeq = 0, limit?: number): Promise<StreamEvent[]> {
    const max = limit === undefined || !Number.isSafeInteger(limit) ? null : Math.max(0, limit);
    const rows = await this.db.query<EventRow>('SELECT plan_id, seq, ts, type, data FROM events WHERE plan_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
      planId,
      afterSeq,
      max,
    ]);
    return rows.map(readEvent);
  }

  async lastSeq(planId: string): Promise<number> {
    return (await this.db.one<{ seq: number | null }>('SELECT max(seq) AS seq FROM events WHERE plan_id = $1', [planId]))?.seq ?? 0;
  }

  /** Every plan's last seq, for a host that polls for events other processes appended. */
  async lastSeqs(): Promise<Map<string, number>> {
    const rows = await this.db.query<{ plan_id: string; last_seq: number }>('SELECT plan_id, last_seq FROM event_seqs');
    return new Map(rows.map((row) => [row.plan_id, row.last_seq]));
  }

  /** Runs an insert of `event` (parameters: plan, seq, ts, type, data); returns the stored seq. */
  private async write(sql: string, event: StreamEvent): Promise<number> {
    try {
      const row = await this.db.one<{ seq: number }>(sql, [event.planId, event.seq, event.ts, event.type, toJsonParam(event.data)]);
      return row!.seq;
    } catch (error) {
      if (isUniqueViolation(error, 'events_pkey')) {
        throw new Error(`event seq ${event.seq} of plan ${event.planId} is already stored (another writer appended to this plan)`);
      }
      throw error;
    }
  }
}

function readEvent(row: EventRow): StreamEvent {
  return parseOrThrow(StreamEventSchema, { planId: row.plan_id, seq: row.seq, ts: row.ts, type: row.type, data: row.data }, `events[${row.plan_id}#${row.seq}]`);
}
