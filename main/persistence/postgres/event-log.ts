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
export class PgEventLog {
  constructor(readonly db: PgDatabase) {}

  async append(event: StreamEvent): Promise<void> {
    const valid = parseOrThrow(StreamEventSchema, event, 'event');
    await this.db.transaction(async () => {
      await this.db.query(
        `INSERT INTO event_seqs (plan_id, last_seq) VALUES ($1, $2)
         ON CONFLICT (plan_id) DO UPDATE SET last_seq = GREATEST(event_seqs.last_seq, excluded.last_seq)`,
        [valid.planId, valid.seq],
      );
      await this.insert(valid);
    });
  }

  /** Gives the event the plan's next seq and stores it, atomically, whoever else appends to the plan. */
  appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>> {
    return this.db.transaction(async () => {
      const row = await this.db.one<{ last_seq: number }>(
        `INSERT INTO event_seqs (plan_id, last_seq) VALUES ($1, 1)
         ON CONFLICT (plan_id) DO UPDATE SET last_seq = event_seqs.last_seq + 1 RETURNING last_seq`,
        [planId],
      );
      const event = parseOrThrow(StreamEventSchema, { planId, seq: row!.last_seq, ts: new Date().toISOString(), type, data }, 'event');
      await this.insert(event);
      return event as StreamEventOf<T>;
    });
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

  private async insert(event: StreamEvent): Promise<void> {
    try {
      await this.db.query('INSERT INTO events (plan_id, seq, ts, type, data) VALUES ($1, $2, $3, $4, $5::json)', [
        event.planId,
        event.seq,
        event.ts,
        event.type,
        toJsonParam(event.data),
      ]);
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
