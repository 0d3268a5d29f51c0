import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../tools/test-support';
import { scanTree } from './snapshot';
import { mapLimit, sortedFiles, walkTree } from './walk';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapLimit', () => {
  it('keeps at most `limit` in flight and returns the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimit([5, 1, 4, 2, 3], 2, async (ms) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(ms);
      inFlight -= 1;
      return ms * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('after a failure starts nothing new, and rejects only once what had started has settled', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const run = mapLimit([0, 1, 2, 3], 2, async (i) => {
      started.push(i);
      if (i === 0) throw new Error('too large');
      await sleep(30);
      settled.push(i);
    });
    await expect(run).rejects.toThrow('too large');
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([1]);
  });
});

describe('sortedFiles', () => {
  afterEach(cleanupTempDirs);

  it('yields the regular files in walkTree order, without .git, links or FIFOs', async () => {
    const root = tempDir('agents-walk-');
    for (const dir of ['a', 'a/b', 'a-c', 'B', '.git', 'z/.GIT']) mkdirSync(path.join(root, dir), { recursive: true });
    for (const file of ['a/b/x.txt', 'a/y.txt', 'a-c/z.txt', 'a.txt', 'a0', 'B/u', '.git/config', 'z/.GIT/HEAD', 'z/w']) writeFileSync(path.join(root, file), 'x');
    symlinkSync('a.txt', path.join(root, 'link'));
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    const expected = (await walkTree(root, { skipGit: true })).entries.filter((e) => e.kind === 'file').map((e) => e.relative);
    expect(expected).toEqual(['B/u', 'a-c/z.txt', 'a.txt', 'a/b/x.txt', 'a/y.txt', 'a0', 'z/w']);
    expect([...sortedFiles(root)].map((f) => f.relative)).toEqual(expected);
    expect([...sortedFiles(root)][0].absolute).toBe(path.join(root, 'B/u'));
  });
});

describe('walkTree for change capture (strict)', () => {
  afterEach(cleanupTempDirs);

  it('rejects a root that is gone, where the lenient walk lists nothing', async () => {
    const gone = path.join(tempDir(), 'sandbox');
    expect(await walkTree(gone)).toEqual({ entries: [], truncated: false });
    await expect(walkTree(gone, { strict: true })).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('scanTree names the folder it could not read instead of reporting its files deleted', async () => {
    await expect(scanTree(path.join(tempDir(), 'sandbox'))).rejects.toThrow(/^cannot read the folder ".*sandbox" to capture changes: ENOENT/);
  });
});
