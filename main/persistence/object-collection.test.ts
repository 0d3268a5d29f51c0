import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { materialiseCheckpoint } from '../engine/checkpoints';
import { ObjectStore } from '../engine/checkpoints/object-store';
import { scanManifest } from '../engine/checkpoints/manifest';
import { treeHash } from '../engine/test-support/tree-hash';
import { OBJECTS_FOLDER } from './data-dir';
import { openStores, type SqliteStores } from './stores';

const REPO_ROOT = path.resolve(__dirname, '../..');
const RECORDER = path.join(__dirname, 'test-support', 'checkpoint-recorder.ts');
const FILES = 1500;

let root: string;
let stores: SqliteStores;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'agents-collection-'));
  stores = openStores(path.join(root, 'data'));
});
afterEach(() => {
  stores.close();
  rmSync(root, { recursive: true, force: true });
});

/** Records plan `planId`'s first checkpoint of `sandbox` in a real second process; resolves once it is scanning. */
function recordElsewhere(sandbox: string, planId: string): { scanning: Promise<void>; done: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', RECORDER, path.join(root, 'data'), sandbox, planId], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let started: () => void = () => undefined;
  const scanning = new Promise<void>((resolve) => (started = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('recording')) started();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<string>((resolve, reject) =>
    child.on('exit', (code) => {
      started();
      if (code === 0) resolve(out);
      else reject(new Error(`the recorder exited with ${code}: ${err}`));
    }),
  );
  return { scanning, done };
}

describe('collecting checkpoint contents while another process records a checkpoint', () => {
  it('keeps every content the new checkpoint names, though a dropped plan stored it long ago and the collection ran throughout', async () => {
    const sandbox = path.join(root, 'sandbox');
    for (let i = 0; i < FILES; i++) {
      mkdirSync(path.join(sandbox, `d${i % 30}`), { recursive: true });
      writeFileSync(path.join(sandbox, `d${i % 30}`, `f${i}.txt`), `file ${i}\n`);
    }
    // An earlier plan over the same project stored every content, two days ago, and was discarded since.
    const objects = new ObjectStore(path.join(root, 'data', OBJECTS_FOLDER));
    await scanManifest(sandbox, objects);
    const twoDaysAgo = Date.now() / 1000 - 2 * 24 * 60 * 60;
    for (const dirent of readdirSync(objects.dir, { recursive: true, withFileTypes: true })) if (dirent.isFile()) utimesSync(path.join(dirent.parentPath, dirent.name), twoDaysAgo, twoDaysAgo);
    expect((await stores.checkpoints.referencedObjects()).size).toBe(0);

    // A new plan over the project records its first checkpoint in another process, finding those contents stored;
    // here, collections run back to back with the real grace period, each reading the references first.
    const recording = recordElsewhere(sandbox, 'P2');
    await recording.scanning;
    let finished = false;
    void recording.done.finally(() => (finished = true)).catch(() => undefined);
    let passes = 0;
    while (!finished || passes === 0) {
      await new ObjectStore(objects.dir).collect(await stores.checkpoints.referencedObjects());
      passes += 1;
    }
    expect(await recording.done).toContain(`recorded ${FILES}`);
    await new ObjectStore(objects.dir).collect(await stores.checkpoints.referencedObjects());

    // Every content the checkpoint names is there: the checkpoint gives back the sandbox byte for byte.
    const named = await stores.checkpoints.referencedObjects();
    expect(named.size).toBe(FILES);
    const copy = path.join(root, 'copy');
    expect(await materialiseCheckpoint(stores.checkpoints, objects, 'P2', 1, copy)).toBe(true);
    expect(treeHash(copy)).toBe(treeHash(sandbox));
    expect(passes).toBeGreaterThan(0);
  }, 60_000);

  it('names the contents of every plan’s checkpoints and of a rewind in flight, and no longer those of dropped checkpoints', async () => {
    const sandbox = path.join(root, 'sandbox');
    mkdirSync(sandbox);
    writeFileSync(path.join(sandbox, 'a.txt'), 'a\n');
    await recordElsewhere(sandbox, 'P1').done;
    writeFileSync(path.join(sandbox, 'b.txt'), 'b\n');
    await recordElsewhere(sandbox, 'P2').done;
    const objects = new ObjectStore(path.join(root, 'data', OBJECTS_FOLDER));
    const hashOf = async (text: string) => objects.put(Buffer.from(text));
    expect([...await stores.checkpoints.referencedObjects()].sort()).toEqual([await hashOf('a\n'), await hashOf('b\n')].sort());
    await stores.checkpoints.removeAfter('P2', 0);
    expect([...await stores.checkpoints.referencedObjects()]).toEqual([await hashOf('a\n')]);
    const journal = { planId: 'P2', checkpointId: 'C', toStep: 1, fromStep: null, decisionId: 'D', by: 'test', files: [], createdAt: '' };
    await stores.checkpoints.beginRewind({ ...journal, ops: [{ op: 'write', path: 'b.txt', hash: await hashOf('b\n'), mode: 0o644 }, { op: 'remove', path: 'c.txt' }] });
    expect([...await stores.checkpoints.referencedObjects()].sort()).toEqual([await hashOf('a\n'), await hashOf('b\n')].sort());
  }, 60_000);
});
