import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../shared/checks';
import { newId } from '../../../shared/ids';
import type { StoredCheckpoint } from '../../engine/checkpoints/checkpoint-store';
import { ObjectStore } from '../../engine/checkpoints/object-store';
import type { FileSnapshot } from '../../engine/sandbox/snapshot';
import { createStores, type SqliteStores } from '../stores';
import { iso, tempDatabase, tempDir } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

function checkResult(planId: string, overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    id: newId(),
    planId,
    runId: 'R1',
    name: 'tests',
    run: 'npm test',
    source: 'plan',
    decisionId: null,
    exitCode: 0,
    passed: true,
    durationMs: 120,
    timedOut: false,
    timeoutSeconds: 60,
    refused: null,
    outputTail: 'ok\n',
    outputPath: null,
    confinement: 'bwrap-nobody',
    startedAt: iso(1),
    finishedAt: iso(2),
    ...overrides,
  } as CheckResult;
}

function checkpoint(planId: string, step: number, delta: StoredCheckpoint['delta']): StoredCheckpoint {
  return {
    id: newId(),
    planId,
    step,
    decisionId: `D${step}`,
    description: `step ${step}`,
    createdAt: iso(step),
    filesChanged: Object.keys(delta).length,
    entries: step - 1,
    inputTokens: 10 * step,
    outputTokens: step,
    delta,
    changesetId: 'CS1',
    decisions: { [`D${step}`]: 'pending' },
    usage: null,
  };
}

const file = (hash: string, ino = 7, mode?: number): FileSnapshot => ({ hash, size: 3, mtimeMs: 1_700_000_000_123.5, ctimeMs: 1_700_000_000_124.25, ino, hashedAtMs: 1_700_000_001_000, ...(mode === undefined ? {} : { mode }) });

// The stores without a contract suite yet: each PostgreSQL one does what the SQLite one does, the same operations read back alike.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PostgreSQL applied log, check results, sandbox files, checkpoints and objects'), () => {
  const pg = usePostgresStores();
  let sqlite: { stores: SqliteStores; dispose(): void };
  beforeEach(() => {
    const temp = tempDatabase();
    sqlite = { stores: createStores(temp.db), dispose: temp.dispose };
  });
  afterEach(() => sqlite.dispose());

  it('applied log: upserts per path, lists by path', async () => {
    const first = [
      { path: 'b.txt', hunks: [1, 2], contentHash: 'h-b', appliedAt: iso(1) },
      { path: 'a.txt', hunks: [], contentHash: null, appliedAt: iso(1) },
    ];
    const second = [{ path: 'b.txt', hunks: [3], contentHash: 'h-b2', appliedAt: iso(2) }];
    for (const records of [first, second]) {
      await sqlite.stores.applied.record('P1', records);
      await pg.stores().applied.record('P1', records);
    }
    await pg.stores().applied.record('P1', []);
    expect(await pg.stores().applied.list('P1')).toEqual(await sqlite.stores.applied.list('P1'));
    expect(await pg.stores().applied.list('P1')).toEqual([first[1], second[0]]);
    expect(await pg.stores().applied.list('P2')).toEqual([]);
  });

  it('check results: listed per plan in the order they ran', async () => {
    const results = [checkResult('P1'), checkResult('P2'), checkResult('P1', { passed: false, exitCode: 1, outputTail: 'FAIL\n' })];
    for (const result of results) {
      await sqlite.stores.checks.record(result);
      await pg.stores().checks.record(result);
    }
    expect(await pg.stores().checks.listForPlan('P1')).toEqual(await sqlite.stores.checks.listForPlan('P1'));
    expect(await pg.stores().checks.listForPlan('P1')).toEqual([results[0], results[2]]);
  });

  it('sandbox files: none before a base; the base, what was seen since, and a forget', async () => {
    const both = async <T>(op: (s: SqliteStores['sandboxFiles'] | ReturnType<typeof pg.stores>['sandboxFiles']) => T | Promise<T>) => {
      await op(sqlite.stores.sandboxFiles);
      await op(pg.stores().sandboxFiles);
    };
    expect(await pg.stores().sandboxFiles.load('P1')).toBeNull();
    await both((s) => s.recordBase('P1', new Map([['a.txt', file('ha')], ['dir/b.txt', file('hb', 8)]])));
    expect(await pg.stores().sandboxFiles.load('P1')).toEqual(await sqlite.stores.sandboxFiles.load('P1'));
    await both((s) => s.saveSeen('P1', new Map<string, FileSnapshot | null>([['a.txt', file('ha2', 7, 0o755)], ['new.txt', file('hn')], ['dir/b.txt', null]])));
    await both((s) => s.saveSeen('P1', new Map<string, FileSnapshot | null>([['new.txt', null]])));
    const loaded = await pg.stores().sandboxFiles.load('P1');
    expect(loaded).toEqual(await sqlite.stores.sandboxFiles.load('P1'));
    expect(loaded).toEqual(new Map([['a.txt', { baseHash: 'ha', seen: file('ha2', 7, 0o755) }], ['dir/b.txt', { baseHash: 'hb', seen: null }]]));
    await both((s) => s.forget('P1'));
    expect(await pg.stores().sandboxFiles.load('P1')).toBeNull();
  });

  it('checkpoints: a step replaces itself and later ones; journals; the objects they name', async () => {
    const cps = [
      checkpoint('P1', 1, { 'a.txt': { kind: 'file', mode: 0o644, hash: 'h1', size: 1, mtimeMs: 1, ctimeMs: 1, ino: 1 }, src: { kind: 'dir', mode: 0o755 } }),
      checkpoint('P1', 2, { 'a.txt': { kind: 'file', mode: 0o644, hash: 'h2', size: 1, mtimeMs: 2, ctimeMs: 2, ino: 1 }, 'l': { kind: 'symlink', target: 'a.txt' } }),
      checkpoint('P1', 3, { 'a.txt': null }),
      checkpoint('P1', 2, { 'b.txt': { kind: 'file', mode: 0o600, hash: 'h3', size: 1, mtimeMs: 3, ctimeMs: 3, ino: 2 } }),
    ];
    for (const cp of cps) {
      await sqlite.stores.checkpoints.add(cp);
      await pg.stores().checkpoints.add(cp);
    }
    const journal = {
      planId: 'P1', checkpointId: cps[0]!.id, toStep: 1, fromStep: 2, decisionId: 'DR', by: 'operator',
      ops: [{ op: 'write' as const, path: 'a.txt', hash: 'h9', mode: 0o644 }, { op: 'remove' as const, path: 'b.txt' }],
      files: [{ path: 'a.txt', operation: 'modify' as const, editedByOperator: false }], createdAt: iso(9),
    };
    await sqlite.stores.checkpoints.beginRewind(journal);
    await pg.stores().checkpoints.beginRewind(journal);
    const store = pg.stores().checkpoints;
    expect(await store.list('P1')).toEqual(await sqlite.stores.checkpoints.list('P1'));
    expect((await store.list('P1')).map((c) => c.id)).toEqual([cps[0]!.id, cps[3]!.id]);
    expect(await store.summaries('P1')).toEqual(await sqlite.stores.checkpoints.summaries('P1'));
    expect(await store.count('P1')).toBe(2);
    expect(await store.referencedObjects()).toEqual(new Set(['h1', 'h3', 'h9']));
    expect(await store.pendingRewinds()).toEqual([journal]);
    await store.endRewind('P1');
    await store.removeAfter('P1', 1);
    expect(await store.pendingRewinds()).toEqual([]);
    expect(await store.summaries('P1')).toEqual([expect.objectContaining({ step: 1 })]);
    expect(await store.referencedObjects()).toEqual(new Set(['h1']));
  });

  it('checkpoint objects: contents by hash in the database, kept while named or young', async () => {
    const objects = pg.stores().objects;
    const content = Buffer.from([0, 1, 2, 255, 10]);
    const hash = await objects.put(content);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await objects.put(content)).toBe(hash);
    expect(await objects.has(hash)).toBe(true);
    expect(await objects.get(hash)).toEqual(content);
    const other = await objects.put(Buffer.from('unreferenced'));
    expect(await objects.collect(new Set([hash]), 60_000)).toEqual({ removed: 0, bytes: 0 });
    expect(await objects.collect(new Set([hash]), -1)).toEqual({ removed: 1, bytes: 12 });
    expect(await objects.has(other)).toBe(false);
    expect(await objects.get(hash)).toEqual(content);
  });

  it("checkpoint objects: a worker brings the contents it needs into its own object folder", async () => {
    const objects = pg.stores().objects;
    const contents = ['one\n', 'two\n', 'three\n'].map((text) => Buffer.from(text));
    const hashes = await Promise.all(contents.map((content) => objects.put(content)));
    const dir = tempDir();
    try {
      const local = new ObjectStore(path.join(dir, 'objects'));
      await local.put(contents[0]!, hashes[0]);
      expect(await objects.materialize([...hashes, hashes[1]!], local)).toBe(2);
      expect(await Promise.all(hashes.map((hash) => local.read(hash)))).toEqual(contents);
      expect(await objects.materialize(hashes, local)).toBe(0);
      await expect(objects.materialize(['f'.repeat(64)], local)).rejects.toThrow(/checkpoint content f{64} is in neither the database nor/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
