import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OBJECT_GRACE_MS, ObjectStore } from './object-store';

let root: string;
let objects: ObjectStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'agents-objects-'));
  objects = new ObjectStore(path.join(root, 'objects'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const TWO_DAYS = 2 * 24 * 60 * 60;
/** Makes a stored file look as old as one stored two days ago. */
const age = (file: string) => utimesSync(file, Date.now() / 1000 - TWO_DAYS, Date.now() / 1000 - TWO_DAYS);
const stored = () =>
  readdirSync(objects.dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name)
    .sort();

describe('collecting the object store', () => {
  it('removes the objects no checkpoint names once past the grace period, and keeps named and young ones', async () => {
    const kept = await objects.put(Buffer.from('named by a checkpoint\n'));
    const dropped = await objects.put(Buffer.from('named by a dropped checkpoint\n'));
    const young = await objects.put(Buffer.from('stored a moment ago\n'));
    for (const hash of [kept, dropped]) age(objects.pathOf(hash));
    // A write a crash cut off, long ago, and one under way now.
    const oldTemp = path.join(path.dirname(objects.pathOf(kept)), '.agents-0123456789abcdef.tmp');
    const newTemp = path.join(path.dirname(objects.pathOf(kept)), '.agents-fedcba9876543210.tmp');
    writeFileSync(oldTemp, 'half');
    writeFileSync(newTemp, 'half');
    age(oldTemp);

    expect(await objects.collect(new Set([kept]))).toEqual({ removed: 1, bytes: 'named by a dropped checkpoint\n'.length });
    expect(existsSync(objects.pathOf(kept))).toBe(true);
    expect(existsSync(objects.pathOf(dropped))).toBe(false);
    expect(existsSync(objects.pathOf(young))).toBe(true);
    expect(existsSync(oldTemp)).toBe(false);
    expect(existsSync(newTemp)).toBe(true);
    // With no grace period, the young object and the write under way go too; a named one never does.
    expect(await objects.collect(new Set([kept]), 0)).toMatchObject({ removed: 1 });
    expect(stored()).toEqual([path.basename(objects.pathOf(kept))]);
  });

  it('keeps an old object that a checkpoint being recorded finds stored, before its row names it', async () => {
    const content = Buffer.from('the same file in a new plan\n');
    const hash = await objects.put(content);
    age(objects.pathOf(hash));
    // Another process's recorder (its own store, as after a restart) finds the content stored and uses it.
    const recorder = new ObjectStore(objects.dir);
    expect(await recorder.put(content)).toBe(hash);
    expect(Date.now() - statSync(objects.pathOf(hash)).mtimeMs).toBeLessThan(60_000);
    // A collection that read the references before that checkpoint's row was written.
    expect(await objects.collect(new Set())).toEqual({ removed: 0, bytes: 0 });
    expect(existsSync(objects.pathOf(hash))).toBe(true);
  });

  it('puts back an object a killed collection had set aside, then judges it as any other', async () => {
    const named = await objects.put(Buffer.from('named\n'));
    const unnamed = await objects.put(Buffer.from('unnamed\n'));
    for (const hash of [named, unnamed]) {
      age(objects.pathOf(hash));
      renameSync(objects.pathOf(hash), `${objects.pathOf(hash)}.collecting`);
    }
    await objects.collect(new Set([named]));
    expect(existsSync(objects.pathOf(named))).toBe(true);
    expect(existsSync(objects.pathOf(unnamed))).toBe(false);
    expect(stored()).toEqual([path.basename(objects.pathOf(named))]);
  });

  it('collects nothing from a store that was never written, and leaves what is not an object', async () => {
    expect(await objects.collect(new Set())).toEqual({ removed: 0, bytes: 0 });
    mkdirSync(path.join(objects.dir, 'ab'), { recursive: true });
    writeFileSync(path.join(objects.dir, 'ab', 'notes.txt'), 'mine');
    age(path.join(objects.dir, 'ab', 'notes.txt'));
    expect(await objects.collect(new Set(), 0)).toEqual({ removed: 0, bytes: 0 });
    expect(existsSync(path.join(objects.dir, 'ab', 'notes.txt'))).toBe(true);
    expect(OBJECT_GRACE_MS).toBeGreaterThan(0);
  });
});
