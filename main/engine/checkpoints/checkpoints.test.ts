import { chmodSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StrategyDecision } from '../../../shared/domain';
import { toChangeEntry } from '../run/change-capture';
import { InMemoryChangeSetStore } from '../run/in-memory-changeset-store';
import { InMemoryCheckpointStore, InMemoryInvocationLog } from '../test-support/in-memory-stores';
import { treeHash, treeListing } from '../test-support/tree-hash';
import { foldDeltas, manifestAt, materialiseCheckpoint } from '.';
import { scanManifest } from './manifest';
import { ObjectStore } from './object-store';
import { CheckpointRecorder } from './recorder';
import { applyRestore, applyRestoreAsync, planRestore } from './restore';

let root: string;
let sandbox: string;
let objects: ObjectStore;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'agents-checkpoints-'));
  sandbox = path.join(root, 'sandbox');
  mkdirSync(path.join(sandbox, 'src', 'deep'), { recursive: true });
  writeFileSync(path.join(sandbox, 'README.md'), '# Demo\n');
  writeFileSync(path.join(sandbox, 'src', 'a.js'), 'a\n');
  writeFileSync(path.join(sandbox, 'src', 'deep', 'b.js'), 'b\n');
  writeFileSync(path.join(sandbox, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(path.join(sandbox, 'bin.dat'), Buffer.from([0, 1, 2, 255]));
  symlinkSync('README.md', path.join(sandbox, 'link'));
  mkdirSync(path.join(sandbox, '.git'));
  writeFileSync(path.join(sandbox, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  objects = new ObjectStore(path.join(root, 'objects'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const at = (rel: string) => path.join(sandbox, rel);
const objectCount = () => readdirSync(objects.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).length;

/** Every kind of change a step (or a shell command) can make. */
function changeEverything(): void {
  writeFileSync(at('README.md'), '# Changed\n');
  unlinkSync(at('src/a.js'));
  writeFileSync(at('new.txt'), 'new\n');
  chmodSync(at('run.sh'), 0o644);
  unlinkSync(at('link'));
  symlinkSync('new.txt', at('link'));
  rmSync(at('src/deep'), { recursive: true });
  writeFileSync(at('src/deep'), 'a file where a folder was\n');
  mkdirSync(at('gen/out'), { recursive: true });
  writeFileSync(at('gen/out/x.txt'), 'x\n');
  chmodSync(at('src'), 0o700);
}

describe('restoring a manifest', () => {
  it('puts back contents, modes, symbolic links and folders exactly, and leaves .git alone', async () => {
    const before = treeListing(sandbox);
    const manifest = await scanManifest(sandbox, objects);
    changeEverything();
    writeFileSync(at('.git/HEAD'), 'ref: refs/heads/other\n');
    expect(treeListing(sandbox)).not.toEqual(before);

    const { ops, files } = await planRestore(sandbox, manifest);
    expect(files.map((f) => `${f.operation} ${f.path}`)).toEqual([
      'modify README.md',
      'delete gen/out/x.txt',
      'modify link',
      'delete new.txt',
      'modify run.sh',
      'create src/a.js',
      'delete src/deep',
      'create src/deep/b.js',
    ]);
    expect(ops.filter((op) => op.op === 'remove').length).toBeGreaterThan(1);
    // As a rewind applies them: the removals several at once, then the rest.
    await applyRestoreAsync(sandbox, ops, objects);
    expect(treeListing(sandbox)).toEqual(before);
    // What the change capture leaves out, a rewind leaves as it is.
    expect(readdirSync(at('.git'))).toEqual(['HEAD']);
  });

  it('writes a file over in place only when nothing else links to it: a hard link elsewhere keeps its content', async () => {
    const manifest = await scanManifest(sandbox, objects);
    // .git is left alone by a rewind: a link there to a sandbox file must not see the rewind's write.
    linkSync(at('src/a.js'), at('.git/kept'));
    writeFileSync(at('src/a.js'), 'a, changed and longer than before\n');
    writeFileSync(at('README.md'), '# Demo, with a longer title\n');
    const { ops } = await planRestore(sandbox, manifest);
    applyRestore(sandbox, ops, objects);
    expect(readFileSync(at('src/a.js'), 'utf8')).toBe('a\n');
    expect(readFileSync(at('.git/kept'), 'utf8')).toBe('a, changed and longer than before\n');
    // Written over in place, then cut to the checkpoint's length.
    expect(readFileSync(at('README.md'), 'utf8')).toBe('# Demo\n');
  });

  it('ends the same when its operations are applied again after being cut off part way (a crash, then the roll-forward)', async () => {
    const before = treeHash(sandbox);
    const manifest = await scanManifest(sandbox, objects);
    changeEverything();
    const { ops } = await planRestore(sandbox, manifest);
    for (const cut of [1, Math.floor(ops.length / 2), ops.length - 1]) {
      applyRestore(sandbox, ops.slice(0, cut), objects);
      applyRestore(sandbox, ops, objects);
      expect(treeHash(sandbox)).toBe(before);
    }
    // Cut off among the removals a rewind makes concurrently, then rolled forward as an open does.
    changeEverything();
    const again = (await planRestore(sandbox, manifest)).ops;
    await applyRestoreAsync(sandbox, again.slice(0, 2), objects);
    applyRestore(sandbox, again, objects);
    expect(treeHash(sandbox)).toBe(before);
  });

  it.skipIf(process.getuid?.() === 0)('rewinds past a folder a step made read-only: it goes, and a file written into a read-only folder keeps the folder’s mode', async () => {
    const before = treeHash(sandbox);
    const manifest = await scanManifest(sandbox, objects);
    mkdirSync(at('ro/inner'), { recursive: true });
    writeFileSync(at('ro/inner/f'), 'f\n');
    chmodSync(at('ro/inner'), 0o555);
    chmodSync(at('ro'), 0o555);
    writeFileSync(at('src/a.js'), 'changed\n');
    unlinkSync(at('src/deep/b.js'));
    chmodSync(at('src'), 0o555);
    chmodSync(at('src/deep'), 0o555);
    const { ops } = await planRestore(sandbox, manifest);
    await applyRestoreAsync(sandbox, ops, objects);
    expect(treeHash(sandbox)).toBe(before);
  });

  it.skipIf(process.getuid?.() === 0)('records a folder that may not be read as it is, keeping what was known below it, instead of failing', async () => {
    const manifest = await scanManifest(sandbox, objects);
    chmodSync(at('src/deep'), 0o000);
    try {
      const now = await scanManifest(sandbox, objects, manifest);
      expect(now.get('src/deep')).toEqual({ kind: 'dir', mode: 0 });
      expect(now.get('src/deep/b.js')).toEqual(manifest.get('src/deep/b.js'));
      expect([...now.keys()]).toEqual([...now.keys()].sort());
      // A rewind puts the folder's mode back.
      const { ops } = await planRestore(sandbox, manifest);
      applyRestore(sandbox, ops, objects);
      expect((await scanManifest(sandbox, null)).get('src/deep')).toEqual(manifest.get('src/deep'));
    } finally {
      chmodSync(at('src/deep'), 0o755);
    }
  });

  it('makes a new folder hold exactly a checkpoint (a fork’s sandbox)', async () => {
    const store = new InMemoryCheckpointStore();
    const changesets = new InMemoryChangeSetStore();
    const recorder = new CheckpointRecorder(store, objects, changesets, new InMemoryInvocationLog());
    const expected = treeHash(sandbox);
    await recorder.record(await start(store, changesets, 1));
    changeEverything();
    const copy = path.join(root, 'fork');
    expect(await materialiseCheckpoint(store, objects, 'P1', 1, copy)).toBe(true);
    expect(treeHash(copy)).toBe(expected);
    expect(await materialiseCheckpoint(store, objects, 'P1', 2, path.join(root, 'none'))).toBe(false);
  });
});

const steps: StrategyDecision[] = [1, 2, 3].map((n) => ({
  id: `D${n}`,
  planId: 'P1',
  parentId: 'ROOT',
  type: 'strategy_choice',
  order: n,
  description: `Step ${n}`,
  rationale: '',
  toolCalls: [],
  status: 'pending',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}));

let changesetId: string | null = null;

/** Step `step` starting in plan P1, whose changeset is `changesetId`. */
async function start(store: InMemoryCheckpointStore, changesets: InMemoryChangeSetStore, step: number) {
  changesetId ??= await changesets.start('P1');
  const plan = { id: 'P1', changesetId, usage: { inputTokens: 10 * step, outputTokens: step, steps: [] } } as never;
  return { plan, sandboxRoot: sandbox, steps, decisions: steps, decision: steps[step - 1], step };
}

describe('the checkpoint recorder', () => {
  beforeEach(() => {
    changesetId = null;
  });

  it('stores each distinct content once, and afterwards only what the changeset says changed', async () => {
    writeFileSync(at('copy.md'), '# Demo\n');
    const store = new InMemoryCheckpointStore();
    const changesets = new InMemoryChangeSetStore();
    const recorder = new CheckpointRecorder(store, objects, changesets, new InMemoryInvocationLog());
    const first = await recorder.record(await start(store, changesets, 1));
    // README.md and copy.md share their content: 5 distinct contents for 6 files.
    expect(first).toMatchObject({ step: 1, filesChanged: 7, entries: 0, inputTokens: 10, outputTokens: 1 });
    expect(objectCount()).toBe(5);

    // A file tool writes two files; the change capture records them.
    writeFileSync(at('src/a.js'), 'a, changed\n');
    writeFileSync(at('made/n.txt'.replace('made/', '')), 'n\n');
    for (const [rel, before, after] of [['src/a.js', 'a\n', 'a, changed\n'], ['n.txt', null, 'n\n']] as const) {
      await changesets.record(changesetId as string, toChangeEntry({ operation: before ? 'modify' : 'create', path: rel, before: before ? Buffer.from(before) : null, after: Buffer.from(after) }, { decisionId: 'D1', invocationId: null }));
    }
    const second = await recorder.record(await start(store, changesets, 2));
    expect(second).toMatchObject({ step: 2, filesChanged: 2, entries: 2 });
    expect(Object.keys(second?.delta ?? {})).toEqual(['n.txt', 'src/a.js']);
    expect(objectCount()).toBe(7);

    // The same step again (a retry) keeps the checkpoint it took first.
    expect(await recorder.record(await start(store, changesets, 2))).toBeNull();
    expect(await store.count('P1')).toBe(2);
    // Folded, the deltas are what the sandbox holds.
    expect(foldDeltas((await store.list('P1')).map((c) => c.delta))).toEqual(await scanManifest(sandbox, objects));
    expect((await manifestAt(store, 'P1', 2))?.get('n.txt')).toMatchObject({ kind: 'file', mode: 0o644 });
  });

  it('after a shell command, looks at the whole tree: a mode it changed is part of the checkpoint', async () => {
    const store = new InMemoryCheckpointStore();
    const changesets = new InMemoryChangeSetStore();
    const invocations = new InMemoryInvocationLog();
    const recorder = new CheckpointRecorder(store, objects, changesets, invocations);
    await recorder.record(await start(store, changesets, 1));
    chmodSync(at('README.md'), 0o600);
    await invocations.record({ id: 'I1', planId: 'P1', decisionId: 'D1', tool: 'shell.run', args: { command: 'chmod 600 README.md' }, ok: true, error: null, startedAt: '', durationMs: 1 });
    const second = await recorder.record(await start(store, changesets, 2));
    expect(second?.filesChanged).toBe(1);
    expect(second?.delta['README.md']).toMatchObject({ kind: 'file', mode: 0o600 });
  });

  it('a folder replaced by a file leaves nothing of what the folder held, even when the changeset names only the file', async () => {
    const store = new InMemoryCheckpointStore();
    const changesets = new InMemoryChangeSetStore();
    const recorder = new CheckpointRecorder(store, objects, changesets, new InMemoryInvocationLog());
    await recorder.record(await start(store, changesets, 1));
    rmSync(at('src/deep'), { recursive: true });
    writeFileSync(at('src/deep'), 'a file where a folder was\n');
    await changesets.record(changesetId as string, toChangeEntry({ operation: 'create', path: 'src/deep', before: null, after: Buffer.from('a file where a folder was\n') }, { decisionId: 'D1', invocationId: null }));
    const second = await recorder.record(await start(store, changesets, 2));
    expect(second?.delta['src/deep/b.js']).toBeNull();
    expect(foldDeltas((await store.list('P1')).map((c) => c.delta))).toEqual(await scanManifest(sandbox, objects));
  });

  it('after an MCP server’s tool (exec, as shell.run), looks at the whole tree too; after file tools only, it does not', async () => {
    const store = new InMemoryCheckpointStore();
    const changesets = new InMemoryChangeSetStore();
    const invocations = new InMemoryInvocationLog();
    const recorder = new CheckpointRecorder(store, objects, changesets, invocations);
    await recorder.record(await start(store, changesets, 1));
    await invocations.record({ id: 'I1', planId: 'P1', decisionId: 'D1', tool: 'file.read', args: { path: 'README.md' }, ok: true, error: null, startedAt: '', durationMs: 1 });
    expect((await recorder.record(await start(store, changesets, 2)))?.filesChanged).toBe(0);
    chmodSync(at('run.sh'), 0o700);
    await invocations.record({ id: 'I2', planId: 'P1', decisionId: 'D2', tool: 'files.chmod', args: { path: 'run.sh' }, ok: true, error: null, startedAt: '', durationMs: 1 });
    const third = await recorder.record(await start(store, changesets, 3));
    expect(third?.delta['run.sh']).toMatchObject({ kind: 'file', mode: 0o700 });
  });
});
