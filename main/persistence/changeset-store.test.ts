import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toChangeEntry } from '../engine/run/change-capture';
import { summarizeEntries } from '../engine/ports/changeset-store';
import { countLineChanges } from '../engine/changeset/line-diff';
import { SqliteChangeSetStore } from './changeset-store';
import { openDatabase } from './database';
import { makeEntry, tempDatabase } from './test-support/fixtures';

describe('SqliteChangeSetStore', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let store: SqliteChangeSetStore;
  const blobCount = () => (temp.db.prepare('SELECT COUNT(*) AS n FROM blobs').get() as { n: number }).n;
  beforeEach(() => {
    temp = tempDatabase();
    store = new SqliteChangeSetStore(temp.db);
  });
  afterEach(() => temp.dispose());

  it('stores the same text once, however many entries use it', async () => {
    const id = await store.start('01PLAN');
    const text = 'MIT License\n\nPermission is hereby granted...\n';
    await store.record(id, makeEntry({ path: 'LICENSE', afterText: text }));
    await store.record(id, makeEntry({ path: 'COPYING', afterText: text }));
    expect(blobCount()).toBe(1);
    await store.record(await store.start('01OTHER'), makeEntry({ path: 'LICENSE', beforeText: text, afterText: `${text}more\n` }));
    expect(blobCount()).toBe(2);
    expect((await store.get(id))?.entries.map((e) => e.afterText)).toEqual([text, text]);
  });

  it('round-trips binary entries byte for byte', async () => {
    const id = await store.start('01PLAN');
    const before = randomBytes(4096);
    const after = Buffer.concat([before, Buffer.from([0, 0, 255, 254])]);
    const entry = toChangeEntry({ operation: 'modify', path: 'img.bin', before, after }, { decisionId: 'D1', invocationId: 'I1' });
    expect(entry.binary).toBe(true);
    await store.record(id, entry);
    const read = await store.getEntry(id, entry.id);
    expect(read).toEqual(entry);
    expect(Buffer.from(read!.beforeText!, 'base64').equals(before)).toBe(true);
    expect(Buffer.from(read!.afterText!, 'base64').equals(after)).toBe(true);
    expect(await store.summarize(id)).toMatchObject({ insertions: 0, deletions: 0 });
  });

  it('round-trips texts UTF-8 cannot carry alone: NUL and lone surrogates', async () => {
    const id = await store.start('01PLAN');
    const odd = ['a\u0000b', 'lone \uD800 high', 'lone \uDC00 low', '😀 pair kept', ''];
    const entries = odd.map((afterText) => makeEntry({ afterText }));
    await store.recordMany(id, entries);
    expect((await store.listEntries(id)).map((e) => e.afterText)).toEqual(odd);
    // Distinct lone surrogates must not collide on one blob key.
    expect(blobCount()).toBe(odd.length);
  });

  it('pages 1,000 entries in a stable order', async () => {
    const id = await store.start('01PLAN');
    const entries = Array.from({ length: 1000 }, (_, i) =>
      // Same createdAt and shuffled paths: order must come from seq, not from either.
      makeEntry({ path: `dir/${(i * 7919) % 1000}.txt`, afterText: `${i}\n` }),
    );
    await store.recordMany(id, entries);
    expect(await store.countEntries(id)).toBe(1000);
    const seen: string[] = [];
    for (let offset = 0; offset < 1000; offset += 128) {
      seen.push(...(await store.listEntries(id, { offset, limit: 128 })).map((e) => e.id));
    }
    expect(seen).toEqual(entries.map((e) => e.id));
    expect((await store.listEntries(id, { offset: 500, limit: 3 })).map((e) => e.id)).toEqual(entries.slice(500, 503).map((e) => e.id));
    expect((await store.listEntryMeta(id, { offset: 998, limit: 10 })).map((e) => e.id)).toEqual(entries.slice(998).map((e) => e.id));
  });

  it('records a batch all or nothing', async () => {
    const id = await store.start('01PLAN');
    const good = makeEntry();
    const bad = { ...makeEntry(), operation: 'explode' } as unknown as ReturnType<typeof makeEntry>;
    await expect(store.recordMany(id, [good, bad])).rejects.toThrow(/operation/);
    expect(await store.countEntries(id)).toBe(0);
    expect(blobCount()).toBe(0);
    await store.record(id, good);
    await expect(store.record(id, good)).rejects.toThrow(/UNIQUE/);
    expect(await store.countEntries(id)).toBe(1);
  });

  it('continues seq after entries recorded by another connection', async () => {
    const id = await store.start('01PLAN');
    const other = openDatabase(temp.file);
    const otherStore = new SqliteChangeSetStore(other);
    const a = makeEntry({ path: 'a' });
    const b = makeEntry({ path: 'b' });
    const c = makeEntry({ path: 'c' });
    await store.record(id, a);
    await otherStore.record(id, b);
    await store.record(id, c);
    expect((await otherStore.listEntries(id)).map((e) => e.path)).toEqual(['a', 'b', 'c']);
    other.close();
  });

  it('lists entry metadata with the stored line counts, without texts', async () => {
    const id = await store.start('01PLAN');
    const entry = makeEntry({ beforeText: 'a\nb\nc\n', afterText: 'a\nB\nc\nd\n', decisionId: 'D1' });
    await store.record(id, entry);
    const [meta] = await store.listEntryMeta(id);
    expect(meta).toEqual({
      id: entry.id,
      path: entry.path,
      oldPath: null,
      operation: 'modify',
      beforeHash: entry.beforeHash,
      afterHash: entry.afterHash,
      binary: false,
      decisionId: 'D1',
      invocationId: null,
      ...countLineChanges(entry.beforeText, entry.afterText),
    });
    expect(meta).not.toHaveProperty('afterText');
  });

  it('summarizes any texts as summarizeEntries does', async () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', '', 'ü'), { maxLength: 8 }).map((l) => l.join('\n'));
    const text = fc.option(lines, { nil: null });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text, fc.constantFrom('x', 'y', 'z')), { minLength: 1, maxLength: 6 }), async (specs) => {
        const id = await store.start('01PROP');
        const entries = specs
          .filter(([before, after]) => before !== null || after !== null)
          .map(([beforeText, afterText, path]) => makeEntry({ path, beforeText, afterText }));
        await store.recordMany(id, entries);
        expect(await store.summarize(id)).toEqual(summarizeEntries(id, '01PROP', entries));
      }),
      { numRuns: 60 },
    );
  });
});
