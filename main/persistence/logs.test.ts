import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import { EventPublisher } from '../engine/ports/event-stream';
import { openDatabase } from './database';
import { SqliteEventLog } from './event-log';
import { SqliteInvocationLog } from './invocation-log';
import { connectionOf } from './sql';
import { makeEvent, makeInvocation, tempDatabase } from './test-support/fixtures';

describe('SqliteEventLog', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let log: SqliteEventLog;
  beforeEach(() => {
    temp = tempDatabase();
    log = new SqliteEventLog(temp.db);
  });
  afterEach(() => temp.dispose());

  it('refuses a seq that is already stored, naming plan and seq', async () => {
    await log.append(makeEvent('01PLAN', 1));
    await expect(log.append(makeEvent('01PLAN', 1))).rejects.toThrow(/seq 1 of plan 01PLAN/);
  });

  it('assigns the next seq atomically across connections with appendNext', async () => {
    const other = openDatabase(temp.file);
    const otherLog = new SqliteEventLog(other);
    const a = await log.appendNext('01PLAN', 'plan_created', sampleData('plan_created', { name: 'x' }));
    const b = await otherLog.appendNext('01PLAN', 'state_changed', sampleData('state_changed', { from: 'queued', to: 'processing' }));
    const c = await log.appendNext('01PLAN', 'paused', sampleData('paused'));
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    expect(await otherLog.list('01PLAN')).toEqual([a, b, c]);
    other.close();
  });

  it('continues an EventPublisher\'s seq from what is stored', async () => {
    await log.append(makeEvent('01PLAN', 1));
    await log.append(makeEvent('01PLAN', 2));
    const event = await new EventPublisher(log).publish('01PLAN', 'paused', sampleData('paused'));
    expect(event.seq).toBe(3);
    expect(await log.lastSeq('01PLAN')).toBe(3);
  });

  it('inside a unit, remembers the last seq; after a unit that rolled back, reads it from the table again', async () => {
    const connection = connectionOf(temp.db);
    const seqs = await connection.unit('immediate', async () => {
      const first = (await log.appendNext('01PLAN', 'paused', sampleData('paused'))).seq;
      await log.append(makeEvent('01PLAN', 2));
      return [first, (await log.appendNext('01PLAN', 'paused', sampleData('paused'))).seq];
    });
    expect(seqs).toEqual([1, 3]);
    await expect(
      connection.unit('immediate', async () => {
        expect((await log.appendNext('01PLAN', 'paused', sampleData('paused'))).seq).toBe(4);
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect((await log.list('01PLAN')).map((e) => e.seq)).toEqual([1, 2, 3]);
    // After the unit, the seq comes from the table again: another connection may append now.
    expect((await log.appendNext('01PLAN', 'paused', sampleData('paused'))).seq).toBe(4);
  });

  it('validates events on the way in', async () => {
    await expect(log.append({ ...makeEvent('01PLAN', 1), type: 'nonsense' as never })).rejects.toThrow(/type/);
    await expect(log.append(makeEvent('01PLAN', 0))).rejects.toThrow(/seq/);
  });
});

describe('SqliteInvocationLog', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let log: SqliteInvocationLog;
  beforeEach(() => {
    temp = tempDatabase();
    log = new SqliteInvocationLog(temp.db);
  });
  afterEach(() => temp.dispose());

  it('finds invocations by id and by decision', async () => {
    const a = makeInvocation('01PLAN', { decisionId: 'D1' });
    const b = makeInvocation('01PLAN', { decisionId: 'D2' });
    await log.record(a);
    await log.record(b);
    expect(await log.get(a.id)).toEqual(a);
    expect(await log.get('01NONE')).toBeUndefined();
    expect(await log.listForDecision('D2')).toEqual([b]);
  });

  it('stores a bigint result as a string instead of failing the tool call', async () => {
    const invocation = makeInvocation('01PLAN', { result: { size: 10n } });
    await log.record(invocation);
    expect((await log.get(invocation.id))?.result).toEqual({ size: '10' });
  });
});
