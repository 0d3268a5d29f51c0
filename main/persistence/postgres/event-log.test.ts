import { describe, expect, it } from 'vitest';
import { makeEvent } from '../test-support/fixtures';
import { openPostgresStores } from './stores';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

const step = (index: number) => ({ decisionId: '01DECISION', index, total: 100, description: `step ${index}` });

// What the EventLog contract (run in ./contracts.test.ts) leaves to PostgreSQL: lastSeqs, jsonb's limits, appendNext across pools.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgEventLog'), () => {
  const pg = usePostgresStores();
  const log = () => pg.stores().events;

  it('tells the last seq of every plan at once', async () => {
    for (const event of [1, 2, 3].map((seq) => makeEvent('01PLAN', seq))) await log().append(event);
    await log().append(makeEvent('01OTHER', 1, { type: 'strategize_started', data: {} }));
    expect(await log().lastSeqs()).toEqual(new Map([['01PLAN', 3], ['01OTHER', 1]]));
  });

  it('refuses a seq stored already, and appendNext continues after an appended one', async () => {
    await log().append(makeEvent('01PLAN', 1));
    await expect(log().append(makeEvent('01PLAN', 1))).rejects.toThrow(/already stored/);
    await log().append(makeEvent('01PLAN', 5));
    expect((await log().appendNext('01PLAN', 'execute_step', step(6))).seq).toBe(6);
  });

  it('keeps text a tool may print that jsonb could not hold', async () => {
    const event = makeEvent('01PLAN', 1, { data: { decisionId: 'D', index: 1, total: 1, description: 'nul \u0000 and \u{1F600}' } } as never);
    await log().append(event);
    expect(await log().list('01PLAN')).toEqual([event]);
  });

  it('gives distinct consecutive seqs to appendNext from two pools (two processes) at once', async () => {
    const other = await openPostgresStores(pg.url());
    try {
      const perWriter = 50;
      const write = (events: typeof other.events, offset: number) =>
        Promise.all(Array.from({ length: perWriter }, (_, i) => events.appendNext('01PLAN', 'execute_step', step(offset + i + 1))));
      const [a, b] = await Promise.all([write(log(), 0), write(other.events, perWriter)]);
      const seqs = [...a, ...b].map((event) => event.seq).sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 2 * perWriter }, (_, i) => i + 1));
      const stored = await log().list('01PLAN');
      expect(stored.map((event) => event.seq)).toEqual(seqs);
      // Each stored event is the one its writer was handed.
      expect(new Set(stored.map((event) => (event.data as { index: number }).index)).size).toBe(2 * perWriter);
    } finally {
      await other.close();
    }
  });

  it('gives back the seq of an appendNext whose transaction rolled back', async () => {
    await log().appendNext('01PLAN', 'execute_step', step(1));
    await expect(
      pg.stores().changesets.atomically(async () => {
        await log().appendNext('01PLAN', 'execute_step', step(2));
        throw new Error('the step failed');
      }),
    ).rejects.toThrow(/the step failed/);
    expect((await log().list('01PLAN')).map((e) => e.seq)).toEqual([1]);
    expect((await log().appendNext('01PLAN', 'execute_step', step(3))).seq).toBe(2);
  });
});

describe.skipIf(!testPostgres().url)(postgresSuiteName('readTogether on PostgreSQL'), () => {
  const pg = usePostgresStores();

  it("reads on one snapshot: another process's commit between two reads is not seen by the second", async () => {
    const other = await openPostgresStores(pg.url());
    try {
      await pg.stores().events.appendNext('01PLAN', 'execute_step', step(1));
      const [inside, after] = await pg.stores().readTogether(async () => {
        const first = await pg.stores().events.lastSeq('01PLAN');
        await other.events.appendNext('01PLAN', 'execute_step', step(2));
        return [first, await pg.stores().events.list('01PLAN')] as const;
      });
      expect(inside).toBe(1);
      expect(after.map((e) => e.seq)).toEqual([1]);
      expect(await pg.stores().events.lastSeq('01PLAN')).toBe(2);
    } finally {
      await other.close();
    }
  });
});
