import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import { EventPublisher } from '../engine/event-stream';
import { openDatabase } from './database';
import { SqliteEventLog } from './event-log';
import { SqliteInvocationLog } from './invocation-log';
import { transaction, unitTransaction } from './sql';
import { makeEvent, makeInvocation, tempDatabase } from './test-support/fixtures';

describe('SqliteEventLog', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let log: SqliteEventLog;
  beforeEach(() => {
    temp = tempDatabase();
    log = new SqliteEventLog(temp.db);
  });
  afterEach(() => temp.dispose());

  it('refuses a seq that is already stored, naming plan and seq', () => {
    log.append(makeEvent('01PLAN', 1));
    expect(() => log.append(makeEvent('01PLAN', 1))).toThrow(/seq 1 of plan 01PLAN/);
  });

  it('assigns the next seq atomically across connections with appendNext', () => {
    const other = openDatabase(temp.file);
    const otherLog = new SqliteEventLog(other);
    const a = log.appendNext('01PLAN', 'plan_created', sampleData('plan_created', { name: 'x' }));
    const b = otherLog.appendNext('01PLAN', 'state_changed', sampleData('state_changed', { from: 'queued', to: 'processing' }));
    const c = log.appendNext('01PLAN', 'paused', sampleData('paused'));
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    expect(otherLog.list('01PLAN')).toEqual([a, b, c]);
    other.close();
  });

  it('continues an EventPublisher\'s seq from what is stored', () => {
    log.append(makeEvent('01PLAN', 1));
    log.append(makeEvent('01PLAN', 2));
    const event = new EventPublisher(log).publish('01PLAN', 'paused', sampleData('paused'));
    expect(event.seq).toBe(3);
    expect(log.lastSeq('01PLAN')).toBe(3);
  });

  it('inside a unit, remembers the last seq, and forgets it when a savepoint undoes appends', () => {
    const unit = unitTransaction(temp.db);
    const seqs = unit(() => {
      const first = log.appendNext('01PLAN', 'paused', sampleData('paused')).seq;
      expect(() =>
        transaction(temp.db, 'immediate', () => {
          log.appendNext('01PLAN', 'paused', sampleData('paused'));
          throw new Error('undone');
        }),
      ).toThrow('undone');
      const second = log.appendNext('01PLAN', 'paused', sampleData('paused')).seq;
      log.append(makeEvent('01PLAN', 3));
      return [first, second, log.appendNext('01PLAN', 'paused', sampleData('paused')).seq];
    });
    expect(seqs).toEqual([1, 2, 4]);
    expect(log.list('01PLAN').map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    // After the unit, the seq comes from the table again: another connection may append now.
    expect(log.appendNext('01PLAN', 'paused', sampleData('paused')).seq).toBe(5);
  });

  it('validates events on the way in', () => {
    expect(() => log.append({ ...makeEvent('01PLAN', 1), type: 'nonsense' as never })).toThrow(/type/);
    expect(() => log.append(makeEvent('01PLAN', 0))).toThrow(/seq/);
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

  it('finds invocations by id and by decision', () => {
    const a = makeInvocation('01PLAN', { decisionId: 'D1' });
    const b = makeInvocation('01PLAN', { decisionId: 'D2' });
    log.record(a);
    log.record(b);
    expect(log.get(a.id)).toEqual(a);
    expect(log.get('01NONE')).toBeUndefined();
    expect(log.listForDecision('D2')).toEqual([b]);
  });

  it('stores a bigint result as a string instead of failing the tool call', () => {
    const invocation = makeInvocation('01PLAN', { result: { size: 10n } });
    log.record(invocation);
    expect(log.get(invocation.id)?.result).toEqual({ size: '10' });
  });
});
