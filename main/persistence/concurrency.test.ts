import { type ChildProcess, spawn } from 'node:child_process';
import { sampleData } from '../../shared/test-support/sample-events';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, pragma } from './database';
import { createStores, type SqliteStores } from './stores';
import { makeEntry, makeEvent, makePlan, tempDatabase } from './test-support/fixtures';

const REPO_ROOT = path.resolve(__dirname, '../..');
const WRITER = path.join(__dirname, 'test-support', 'writer.ts');

interface Child {
  process: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor(predicate: (lines: string[]) => boolean): Promise<void>;
}

/** Runs the writer in a real second process, as the CLI and `agents serve` would be. */
function startWriter(file: string, planId: string, mode: 'contend' | 'crash', durationMs: number): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, planId, mode, String(durationMs)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    }),
  );
  return {
    process: child,
    lines,
    stderr: () => stderr,
    exited,
    waitFor: (predicate) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(lines)) {
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`writer exited early: ${stderr}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('two processes on one database file', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let stores: SqliteStores;
  beforeEach(() => {
    temp = tempDatabase();
    stores = createStores(temp.db);
  });
  afterEach(() => temp.dispose());

  it('read and write at the same time without SQLITE_BUSY', async () => {
    const shared = makePlan({ name: 'shared' });
    const mine = makePlan({ name: 'mine' });
    await stores.plans.insert(shared);
    await stores.plans.insert(mine);
    const changesetId = await stores.changesets.start(shared.id);
    await stores.plans.update(shared.id, { changesetId });

    const child = startWriter(temp.file, shared.id, 'contend', 1500);
    await child.waitFor((lines) => lines.includes('ready'));
    const errors: unknown[] = [];
    let appended = 0;
    let recorded = 0;
    let loops = 0;
    while (child.process.exitCode === null && child.process.signalCode === null) {
      loops += 1;
      try {
        // Reads see a consistent snapshot while the other process writes.
        const plan = await stores.plans.get(shared.id);
        expect(plan?.name).toBe('shared');
        // Inside one read transaction both reads see the same snapshot, however the writer goes on.
        await stores.readTogether(async () => {
          const summary = await stores.changesets.summarize(changesetId);
          expect(summary.entryCount).toBe(await stores.changesets.countEntries(changesetId));
        });
        await stores.events.list(shared.id, Math.max(0, await stores.events.lastSeq(shared.id) - 5));
        // Writes to the very rows the other process writes.
        await stores.events.appendNext(shared.id, 'execute_step', sampleData('execute_step', { description: `parent ${loops}` }));
        appended += 1;
        await stores.changesets.record(changesetId, makeEntry({ path: `parent/${loops}.txt`, afterText: `parent ${loops}\n` }));
        recorded += 1;
        await stores.plans.update(mine.id, { errorDetails: { loop: loops } });
      } catch (error) {
        errors.push(error);
      }
      await tick();
    }
    const { code } = await child.exited;
    expect(child.stderr()).not.toMatch(/SQLITE_BUSY|database is locked/);
    expect(code).toBe(0);
    expect(errors).toEqual([]);
    expect(loops).toBeGreaterThan(10);

    const done = JSON.parse(child.lines.find((l) => l.startsWith('done '))!.slice(5)) as { appended: number; recorded: number };
    const events = await stores.events.list(shared.id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: appended + done.appended }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === 'execute_step' && e.data.description.startsWith('child'))).toHaveLength(done.appended);
    expect(await stores.changesets.countEntries(changesetId)).toBe(recorded + done.recorded);
    expect((await stores.plans.get(mine.id))?.errorDetails).toEqual({ loop: loops });
  }, 30_000);

  it('keeps every committed change when the writer is killed mid-run', async () => {
    const plan = makePlan();
    await stores.plans.insert(plan);
    const changesetId = await stores.changesets.start(plan.id);
    await stores.plans.update(plan.id, { changesetId });
    stores.close();

    const child = startWriter(temp.file, plan.id, 'crash', 20_000);
    await child.waitFor((lines) => lines.filter((l) => l.startsWith('committed ')).length >= 50);
    child.process.kill('SIGKILL');
    const { signal } = await child.exited;
    expect(signal).toBe('SIGKILL');
    const reported = Math.max(...child.lines.filter((l) => l.startsWith('committed ')).map((l) => Number(l.split(' ')[1])));

    const reopened = createStores(openDatabase(temp.file));
    try {
      expect(pragma(reopened.db, 'integrity_check')).toBe('ok');
      const count = await reopened.changesets.countEntries(changesetId);
      // Everything reported committed is there; at most the one in flight may also be.
      expect(count).toBeGreaterThanOrEqual(reported);
      expect(count).toBeLessThanOrEqual(reported + 1);
      expect((await reopened.changesets.listEntries(changesetId)).map((e) => e.path)).toEqual(
        Array.from({ length: count }, (_, i) => `crash/${i + 1}.txt`),
      );
    } finally {
      reopened.close();
    }
  }, 30_000);
});

describe('readTogether', () => {
  it('reads on one snapshot: a commit of another connection between two reads is seen by neither', async () => {
    const temp = tempDatabase();
    try {
      const stores = createStores(temp.db);
      const other = createStores(openDatabase(temp.file));
      const plan = makePlan();
      await stores.plans.insert(plan);
      await stores.events.append(makeEvent(plan.id, 1));
      const [first, second] = await stores.readTogether(async () => {
        const before = await stores.events.lastSeq(plan.id);
        await other.events.append(makeEvent(plan.id, 2));
        return [before, await stores.events.lastSeq(plan.id)];
      });
      expect([first, second]).toEqual([1, 1]);
      expect(await stores.events.lastSeq(plan.id)).toBe(2);
      other.close();
    } finally {
      temp.dispose();
    }
  });
});
