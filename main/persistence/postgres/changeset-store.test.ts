import { describe, expect, it } from 'vitest';
import { summarizeEntries } from '../../engine/changeset-store';
import { makeEntry, makeInvocation } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// The ChangeSetStore contract (../contracts/changeset-store.contract.ts), awaited, and its transaction.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgChangeSetStore'), () => {
  const pg = usePostgresStores();
  const store = () => pg.stores().changesets;

  it('starts empty changesets with distinct ids', async () => {
    const a = await store().start('01PLAN');
    const b = await store().start('01PLAN');
    expect(a).not.toBe(b);
    const changeset = await store().get(a);
    expect(changeset).toMatchObject({ id: a, planId: '01PLAN', entries: [] });
    expect(typeof changeset?.createdAt).toBe('string');
  });

  it('returns undefined, nothing, zero for an unknown changeset, and refuses to record into or summarize one', async () => {
    expect(await store().get('01UNKNOWN')).toBeUndefined();
    expect(await store().listEntries('01UNKNOWN', { offset: 0, limit: 10 })).toEqual([]);
    expect(await store().countEntries('01UNKNOWN')).toBe(0);
    expect(await store().getEntry('01UNKNOWN', '01ENTRY')).toBeUndefined();
    expect(await store().getForPlan('01NOPLAN')).toEqual([]);
    await expect(store().record('01UNKNOWN', makeEntry())).rejects.toThrow(/unknown changeset/);
    await expect(store().summarize('01UNKNOWN')).rejects.toThrow(/unknown changeset/);
  });

  it('keeps entries in recording order, with their texts exact, in the database', async () => {
    const id = await store().start('01PLAN');
    const entries = [
      makeEntry({ path: 'a.txt', afterText: 'line one\r\nline two\r\n' }),
      makeEntry({ path: 'b.txt', beforeText: 'old\n', afterText: 'new ✓ — 😀 中文\n', decisionId: 'D1', invocationId: 'I1' }),
      makeEntry({ path: 'c.txt', beforeText: 'gone\n', afterText: null }),
      makeEntry({ path: 'd.txt', oldPath: 'old-d.txt', operation: 'rename', beforeText: 'same', afterText: 'same' }),
      makeEntry({ path: 'empty.txt', afterText: '' }),
      makeEntry({ path: 'nul.txt', afterText: 'a\u0000b\n' }),
      makeEntry({ path: 'surrogate.txt', afterText: 'lone \uD800 half\n', origin: 'operator' }),
    ];
    for (const entry of entries) await store().record(id, entry);
    expect((await store().get(id))?.entries).toEqual(entries);
    expect(await store().countEntries(id)).toBe(entries.length);
    // The texts are rows of the database (once each: 'same' twice is one blob), not files on a machine's disk.
    const blobs = await pg.stores().db.one<{ n: number }>('SELECT count(*) AS n FROM blobs');
    expect(blobs?.n).toBe(8);
  });

  it("lists each plan's changesets in creation order", async () => {
    const first = await store().start('01PLAN');
    const other = await store().start('01OTHER');
    const second = await store().start('01PLAN');
    await store().record(second, makeEntry());
    const forPlan = await store().getForPlan('01PLAN');
    expect(forPlan.map((c) => c.id)).toEqual([first, second]);
    expect(forPlan[1]!.entries).toHaveLength(1);
    expect((await store().getForPlan('01OTHER')).map((c) => c.id)).toEqual([other]);
  });

  it('pages entries and their metadata in a stable order, and finds one entry within its changeset only', async () => {
    const id = await store().start('01PLAN');
    const other = await store().start('01PLAN');
    const entries = Array.from({ length: 25 }, (_, i) => makeEntry({ path: `f${String(i).padStart(2, '0')}.txt`, afterText: `${i}\n` }));
    await store().recordMany(id, entries);
    const pages = await Promise.all([0, 10, 20].map((offset) => store().listEntries(id, { offset, limit: 10 })));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(entries);
    expect(await store().listEntries(id, { offset: 30, limit: 10 })).toEqual([]);
    const meta = await store().listEntryMeta(id, { offset: 24, limit: 10 });
    expect(meta).toEqual([expect.objectContaining({ id: entries[24]!.id, path: 'f24.txt', insertions: 1, deletions: 0 })]);
    expect('afterText' in meta[0]!).toBe(false);
    expect(await store().getEntryMeta(id, entries[3]!.id)).toMatchObject({ path: 'f03.txt', insertions: 1 });
    expect(await store().getEntry(id, entries[0]!.id)).toEqual(entries[0]);
    expect(await store().getEntry(other, entries[0]!.id)).toBeUndefined();
    expect(await store().getEntry(id, '01NOENTRY')).toBeUndefined();
  });

  it('summarizes as summarizeEntries does, an empty changeset as zeros', async () => {
    const id = await store().start('01PLAN');
    expect(await store().summarize(id)).toEqual(summarizeEntries(id, '01PLAN', []));
    const entries = [
      makeEntry({ path: 'a.txt', afterText: 'one\ntwo\nthree\n' }),
      makeEntry({ path: 'a.txt', beforeText: 'one\ntwo\nthree\n', afterText: 'one\n2\nthree\nfour\n' }),
      makeEntry({ path: 'b.txt', beforeText: 'x\ny\n', afterText: null }),
      makeEntry({ path: 'c.txt', oldPath: 'b0.txt', operation: 'rename', beforeText: 'r\n', afterText: 'r\n' }),
      makeEntry({ path: 'img.png', binary: true, beforeText: null, afterText: Buffer.from([0, 1, 2, 255]).toString('base64') }),
    ];
    for (const entry of entries) await store().record(id, entry);
    const summary = await store().summarize(id);
    expect(summary).toEqual(summarizeEntries(id, '01PLAN', entries));
    expect(summary).toMatchObject({ entryCount: 5, files: 4, operations: { create: 2, modify: 1, delete: 1, rename: 1 } });
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
