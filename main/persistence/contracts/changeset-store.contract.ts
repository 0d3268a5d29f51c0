import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChangeSetStore, summarizeEntries } from '../../engine/ports/changeset-store';
import { type Harness, type HarnessFactory, makeEntry } from '../test-support/fixtures';

/** What every ChangeSetStore must do; run against the in-memory and the SQLite one. */
export function changeSetStoreContract(name: string, factory: HarnessFactory<ChangeSetStore>): void {
  describe(`ChangeSetStore contract: ${name}`, () => {
    let harness: Harness<ChangeSetStore>;
    let store: ChangeSetStore;
    beforeEach(async () => {
      harness = await factory();
      store = harness.subject;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('starts empty changesets with distinct ids', async () => {
      const a = await store.start('01PLAN');
      const b = await store.start('01PLAN');
      expect(a).not.toBe(b);
      const changeset = await store.get(a);
      expect(changeset).toMatchObject({ id: a, planId: '01PLAN', entries: [] });
      expect(typeof changeset?.createdAt).toBe('string');
    });

    it('returns undefined, nothing, zero for an unknown changeset', async () => {
      expect(await store.get('01UNKNOWN')).toBeUndefined();
      expect(await store.listEntries('01UNKNOWN', { offset: 0, limit: 10 })).toEqual([]);
      expect(await store.countEntries('01UNKNOWN')).toBe(0);
      expect(await store.getEntry('01UNKNOWN', '01ENTRY')).toBeUndefined();
      expect(await store.getForPlan('01NOPLAN')).toEqual([]);
    });

    it('refuses to record into, or summarize, an unknown changeset', async () => {
      await expect(store.record('01UNKNOWN', makeEntry())).rejects.toThrow(/unknown changeset/);
      await expect(store.summarize('01UNKNOWN')).rejects.toThrow(/unknown changeset/);
    });

    it('keeps entries in recording order, with their texts and modes exact', async () => {
      const id = await store.start('01PLAN');
      const entries = [
        makeEntry({ path: 'a.txt', afterText: 'line one\r\nline two\r\n' }),
        makeEntry({ path: 'b.txt', beforeText: 'old\n', afterText: 'new ✓ — 😀 中文\n', decisionId: 'D1', invocationId: 'I1' }),
        makeEntry({ path: 'c.txt', beforeText: 'gone\n', afterText: null }),
        makeEntry({ path: 'd.txt', oldPath: 'old-d.txt', operation: 'rename', beforeText: 'same', afterText: 'same' }),
        makeEntry({ path: 'empty.txt', afterText: '' }),
        // A mode changed alone (chmod): the same text, the mode after it.
        makeEntry({ path: 'run.sh', operation: 'modify', beforeText: 'echo\n', afterText: 'echo\n', mode: 0o755, beforeMode: 0o644 }),
      ];
      for (const entry of entries) await store.record(id, entry);
      expect((await store.get(id))?.entries).toEqual(entries);
      expect(await store.countEntries(id)).toBe(entries.length);
    });

    it('lists each plan\'s changesets in creation order', async () => {
      const first = await store.start('01PLAN');
      const other = await store.start('01OTHER');
      const second = await store.start('01PLAN');
      await store.record(second, makeEntry());
      expect((await store.getForPlan('01PLAN')).map((c) => c.id)).toEqual([first, second]);
      expect((await store.getForPlan('01PLAN'))[1].entries).toHaveLength(1);
      expect((await store.getForPlan('01OTHER')).map((c) => c.id)).toEqual([other]);
    });

    it('pages entries in a stable order', async () => {
      const id = await store.start('01PLAN');
      const entries = Array.from({ length: 25 }, (_, i) => makeEntry({ path: `f${String(i).padStart(2, '0')}.txt`, afterText: `${i}\n` }));
      for (const entry of entries) await store.record(id, entry);
      const pages = await Promise.all([0, 10, 20].map((offset) => store.listEntries(id, { offset, limit: 10 })));
      expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
      expect(pages.flat()).toEqual(entries);
      expect(await store.listEntries(id, { offset: 30, limit: 10 })).toEqual([]);
    });

    it('finds one entry within its changeset only', async () => {
      const id = await store.start('01PLAN');
      const other = await store.start('01PLAN');
      const entry = makeEntry();
      await store.record(id, entry);
      expect(await store.getEntry(id, entry.id)).toEqual(entry);
      expect(await store.getEntry(other, entry.id)).toBeUndefined();
      expect(await store.getEntry(id, '01NOENTRY')).toBeUndefined();
    });

    it('summarizes as summarizeEntries does', async () => {
      const id = await store.start('01PLAN');
      const entries = [
        makeEntry({ path: 'a.txt', afterText: 'one\ntwo\nthree\n' }),
        makeEntry({ path: 'a.txt', beforeText: 'one\ntwo\nthree\n', afterText: 'one\n2\nthree\nfour\n' }),
        makeEntry({ path: 'b.txt', beforeText: 'x\ny\n', afterText: null }),
        makeEntry({ path: 'c.txt', oldPath: 'b0.txt', operation: 'rename', beforeText: 'r\n', afterText: 'r\n' }),
        makeEntry({ path: 'img.png', binary: true, beforeText: null, afterText: Buffer.from([0, 1, 2, 255]).toString('base64') }),
      ];
      for (const entry of entries) await store.record(id, entry);
      const summary = await store.summarize(id);
      expect(summary).toEqual(summarizeEntries(id, '01PLAN', entries));
      expect(summary).toMatchObject({ entryCount: 5, files: 4, operations: { create: 2, modify: 1, delete: 1, rename: 1 } });
    });

    it('summarizes an empty changeset as zeros', async () => {
      const id = await store.start('01PLAN');
      expect(await store.summarize(id)).toEqual({
        changesetId: id,
        planId: '01PLAN',
        entryCount: 0,
        files: 0,
        operations: { create: 0, modify: 0, delete: 0, rename: 0 },
        insertions: 0,
        deletions: 0,
      });
    });
  });
}
