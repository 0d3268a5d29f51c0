import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { cleanupTempDirs, tempDir, treeState } from '../tools/test-support';
import { ContentCache } from './content-cache';
import { createSandbox, diffSnapshots, removeSandbox, scanTree, snapshotTree } from './sandbox';

afterEach(cleanupTempDirs);

function project(): string {
  const dir = tempDir('agents-project-');
  mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
  writeFileSync(path.join(dir, 'README.md'), '# Demo\n');
  writeFileSync(path.join(dir, 'src', 'deep', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  symlinkSync('src/deep/a.ts', path.join(dir, 'a-link.ts'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

describe('createSandbox', () => {
  it('makes a full working copy: files, modes, .git, and symlinks copied verbatim (still relative)', async () => {
    const source = project();
    const sandboxes = tempDir('agents-sandboxes-');
    const root = await createSandbox(source, sandboxes, '01HZYPLAN');
    expect(root).toBe(path.join(sandboxes, '01HZYPLAN'));
    expect(treeState(root, { includeGit: true })).toEqual(treeState(source, { includeGit: true }));
    expect(readlinkSync(path.join(root, 'a-link.ts'))).toBe('src/deep/a.ts');
    expect(statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' })).toContain('README.md');
    // A copy, not a link: changing the sandbox leaves the project alone.
    writeFileSync(path.join(root, 'README.md'), 'changed');
    expect(readFileSync(path.join(source, 'README.md'), 'utf8')).toBe('# Demo\n');
  });

  it('refuses an existing sandbox, a bad plan id, a missing project, and a sandbox inside its project', async () => {
    const source = project();
    const sandboxes = tempDir('agents-sandboxes-');
    await createSandbox(source, sandboxes, 'P1');
    await expect(createSandbox(source, sandboxes, 'P1')).rejects.toMatchObject({ category: 'conflict' });
    await expect(createSandbox(source, sandboxes, '../escape')).rejects.toMatchObject({ category: 'validation' });
    await expect(createSandbox(path.join(source, 'nope'), sandboxes, 'P2')).rejects.toThrow(/is not a directory/);
    await expect(createSandbox(source, path.join(source, 'sandboxes'), 'P3')).rejects.toThrow(/inside the project/);
  });

  it('copies at most the size limit: a larger project is refused with a clear error and leaves no partial copy', async () => {
    const source = project();
    writeFileSync(path.join(source, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
    const sandboxes = tempDir('agents-sandboxes-');
    const error = await createSandbox(source, sandboxes, 'BIG', { maxBytes: 2 * 1024 * 1024 }).then(
      () => null,
      (e: unknown) => e as EngineError,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ category: 'validation' });
    expect(error!.message).toBe(
      `project "${source}" is larger than the limit of 2 MiB that a sandbox copies; choose a smaller project folder, or raise the limit with AGENTS_MAX_PROJECT_BYTES`,
    );
    expect(existsSync(path.join(sandboxes, 'BIG'))).toBe(false);
    // Under the limit, the same project copies whole.
    const root = await createSandbox(source, sandboxes, 'FITS', { maxBytes: 4 * 1024 * 1024 });
    expect(statSync(path.join(root, 'big.bin')).size).toBe(3 * 1024 * 1024);
  });

  it('removeSandbox deletes the copy but never what its symlinks point to', async () => {
    const source = project();
    const root = await createSandbox(source, tempDir('agents-sandboxes-'), 'P1');
    symlinkSync(source, path.join(root, 'to-project'));
    await removeSandbox(root);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(path.join(source, 'README.md'))).toBe(true);
  });
});

describe('snapshotTree and diffSnapshots', () => {
  it('finds creations, modifications, deletions and renames, with before bytes from the cache', async () => {
    const root = tempDir('agents-snap-');
    writeFileSync(path.join(root, 'keep.txt'), 'same');
    writeFileSync(path.join(root, 'edit.txt'), 'old');
    writeFileSync(path.join(root, 'gone.txt'), 'bye');
    writeFileSync(path.join(root, 'move.txt'), 'moving content');
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git', 'index'), 'ignored');
    const cache = new ContentCache();
    const before = await snapshotTree(root, { cache });
    expect([...before.keys()]).toEqual(['edit.txt', 'gone.txt', 'keep.txt', 'move.txt']);

    writeFileSync(path.join(root, 'edit.txt'), 'new');
    unlinkSync(path.join(root, 'gone.txt'));
    mkdirSync(path.join(root, 'dir'));
    renameSync(path.join(root, 'move.txt'), path.join(root, 'dir', 'moved.txt'));
    writeFileSync(path.join(root, 'born.bin'), Buffer.from([0, 1, 2]));
    writeFileSync(path.join(root, '.git', 'index'), 'changed but ignored');
    const after = await snapshotTree(root, { previous: before, cache });
    const changes = await diffSnapshots(before, after, root, cache);

    expect(changes.map((c) => ({ op: c.operation, path: c.path, oldPath: c.oldPath, before: c.before?.toString(), after: c.after?.toString('hex') }))).toEqual([
      { op: 'create', path: 'born.bin', oldPath: undefined, before: undefined, after: '000102' },
      { op: 'rename', path: 'dir/moved.txt', oldPath: 'move.txt', before: 'moving content', after: Buffer.from('moving content').toString('hex') },
      { op: 'modify', path: 'edit.txt', oldPath: undefined, before: 'old', after: Buffer.from('new').toString('hex') },
      { op: 'delete', path: 'gone.txt', oldPath: undefined, before: 'bye', after: undefined },
    ]);
  });

  it('trusts size+mtime+ctime+inode of a settled file instead of reading it again', async () => {
    const root = tempDir('agents-snap-');
    writeFileSync(path.join(root, 'a.txt'), 'content');
    const first = await snapshotTree(root);
    // Pretend the file was hashed long after its last write, and plant a wrong hash: if the
    // second snapshot re-read the file, the planted hash would be replaced.
    const entry = first.get('a.txt')!;
    first.set('a.txt', { ...entry, hash: 'planted', hashedAtMs: entry.mtimeMs + 60_000 });
    expect((await snapshotTree(root, { previous: first })).get('a.txt')?.hash).toBe('planted');
  });

  it('reads a file again when it was hashed within the racy window of its last write', async () => {
    const root = tempDir('agents-snap-');
    writeFileSync(path.join(root, 'a.txt'), 'aaaa');
    const first = await snapshotTree(root);
    // Same stat, but hashed 10 ms after the write: a second write in the same timestamp tick
    // would be invisible to stat, so the planted hash must not be trusted.
    const entry = first.get('a.txt')!;
    first.set('a.txt', { ...entry, hash: 'planted', hashedAtMs: Math.max(entry.mtimeMs, entry.ctimeMs) + 10 });
    expect((await snapshotTree(root, { previous: first })).get('a.txt')?.hash).toBe(entry.hash);
  });

  it('lists symlinks without following them', async () => {
    const root = tempDir('agents-snap-');
    symlinkSync('/etc', path.join(root, 'etc'));
    const scan = await scanTree(root);
    expect(scan.files.size).toBe(0);
    expect(scan.symlinks.get('etc')).toBe('/etc');
  });

  it('says which file is missing from the cache instead of inventing its before content', async () => {
    const root = tempDir('agents-snap-');
    writeFileSync(path.join(root, 'a.txt'), 'x');
    const before = await snapshotTree(root);
    rmSync(path.join(root, 'a.txt'));
    const after = await snapshotTree(root);
    await expect(diffSnapshots(before, after, root, new ContentCache())).rejects.toThrow(EngineError);
  });
});

describe('ContentCache', () => {
  it('spills past its memory budget to disk and removes the spill on dispose', async () => {
    const cache = new ContentCache({ maxMemoryBytes: 4 });
    await cache.put('small', Buffer.from('abc'));
    await cache.put('big', Buffer.from('0123456789'));
    expect(cache.stats).toEqual({ blobs: 2, memoryBytes: 3, spilledBlobs: 1 });
    expect((await cache.get('big'))?.toString()).toBe('0123456789');
    await cache.retain(new Set(['small']));
    expect(cache.has('big')).toBe(false);
    await cache.dispose();
    expect(cache.has('small')).toBe(false);
  });
});
