import { describe, expect, it } from 'vitest';
import { makeEntry, makeInvocation } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// What the ChangeSetStore contract (run in ./contracts.test.ts) leaves to PostgreSQL, and its transaction.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgChangeSetStore'), () => {
  const pg = usePostgresStores();
  const store = () => pg.stores().changesets;

  it('keeps texts that PostgreSQL text could not hold, once each, as rows of the database', async () => {
    const id = await store().start('01PLAN');
    const entries = [
      makeEntry({ path: 'nul.txt', afterText: 'a\u0000b\n' }),
      makeEntry({ path: 'surrogate.txt', afterText: 'lone \uD800 half\n', origin: 'operator' }),
      makeEntry({ path: 'd.txt', oldPath: 'old-d.txt', operation: 'rename', beforeText: 'same', afterText: 'same' }),
    ];
    for (const entry of entries) await store().record(id, entry);
    expect((await store().get(id))?.entries).toEqual(entries);
    // Rows of the database (once each: 'same' twice is one blob), not files on a machine's disk.
    const blobs = await pg.stores().db.one<{ n: number }>('SELECT count(*) AS n FROM blobs');
    expect(blobs?.n).toBe(3);
  });

  it('records many entries at once, and gives their metadata without their texts', async () => {
    const id = await store().start('01PLAN');
    const entries = Array.from({ length: 25 }, (_, i) => makeEntry({ path: `f${String(i).padStart(2, '0')}.txt`, afterText: `${i}\n` }));
    await store().recordMany(id, entries);
    expect(await store().listEntries(id, { offset: 0, limit: 100 })).toEqual(entries);
    const meta = await store().listEntryMeta(id, { offset: 24, limit: 10 });
    expect(meta).toEqual([expect.objectContaining({ id: entries[24]!.id, path: 'f24.txt', insertions: 1, deletions: 0 })]);
    expect('afterText' in meta[0]!).toBe(false);
    expect(await store().getEntryMeta(id, entries[3]!.id)).toMatchObject({ path: 'f03.txt', insertions: 1 });
  });

  it('marks entries from a position on as rewound: listed still, out of the changeset as a whole', async () => {
    const id = await store().start('01PLAN');
    const entries = [1, 2, 3, 4].map((i) => makeEntry({ path: `f${i}.txt`, afterText: `${i}\n` }));
    await store().recordMany(id, entries);
    expect(await store().markRewound(id, 2, 'R1')).toBe(2);
    expect(await store().markRewound(id, 2, 'R2')).toBe(0);
    expect((await store().get(id))?.entries).toEqual(entries.slice(0, 2));
    expect((await store().summarize(id)).entryCount).toBe(2);
    expect((await store().listEntries(id, { offset: 0, limit: 10 })).map((e) => e.rewound ?? false)).toEqual([false, false, true, true]);
  });

  it('leaves nothing of a transaction that throws, in any store that joined it', async () => {
    const { changesets, invocations, events } = pg.stores();
    const id = await changesets.start('01PLAN');
    await expect(
      changesets.atomically(async () => {
        await changesets.record(id, makeEntry());
        await invocations.record(makeInvocation('01PLAN'));
        await events.appendNext('01PLAN', 'strategize_started', {});
        throw new Error('the tool call failed');
      }),
    ).rejects.toThrow(/the tool call failed/);
    expect(await changesets.countEntries(id)).toBe(0);
    expect(await invocations.listForPlan('01PLAN')).toEqual([]);
    expect(await events.lastSeq('01PLAN')).toBe(0);
    // And one that returns commits all of it.
    const entry = makeEntry();
    const meta = await changesets.atomically(async () => {
      await invocations.record(makeInvocation('01PLAN'));
      return changesets.record(id, entry);
    });
    expect(meta).toMatchObject({ id: entry.id, insertions: 1 });
    expect(await changesets.countEntries(id)).toBe(1);
    expect(await invocations.listForPlan('01PLAN')).toHaveLength(1);
  });

  it('gives entries recorded at once from several connections distinct positions', async () => {
    const id = await store().start('01PLAN');
    const entries = Array.from({ length: 20 }, (_, i) => makeEntry({ path: `p${i}.txt` }));
    await Promise.all(entries.map((entry) => store().record(id, entry)));
    const listed = await store().listEntries(id, { offset: 0, limit: 100 });
    expect(new Set(listed.map((e) => e.id))).toEqual(new Set(entries.map((e) => e.id)));
  });
});
