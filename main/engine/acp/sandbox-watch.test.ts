import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapturedChange } from '../tools/definition';
import { SandboxWatch } from './sandbox-watch';

const dirs: string[] = [];
const watches: SandboxWatch[] = [];
afterEach(async () => {
  for (const watch of watches.splice(0)) await watch.dispose();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project of a few folders, and a watch that has taken its state. */
async function watched(options: { watch?: boolean } = {}): Promise<{ root: string; watch: SandboxWatch; write(rel: string, text: string): void }> {
  const root = mkdtempSync(path.join(tmpdir(), 'sandbox-watch-'));
  dirs.push(root);
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  for (let i = 0; i < 30; i += 1) write(`pkg${i % 3}/sub/file${i}.ts`, `export const v${i} = ${i};\n`);
  write('README.md', '# project\n');
  write('.git/HEAD', 'ref: refs/heads/main\n');
  const watch = new SandboxWatch(root, options);
  watches.push(watch);
  await watch.baseline();
  return { root, watch, write };
}

const summary = (changes: CapturedChange[]) => changes.map((c) => `${c.operation} ${c.oldPath ? `${c.oldPath} -> ` : ''}${c.path}`);

describe.each([
  ['change notices', {}],
  ['whole scans', { watch: false }],
])('SandboxWatch with %s', (_label, options) => {
  it('finds each capture\'s own creates, edits and deletes, with their contents before and after', async () => {
    const { root, watch, write } = await watched(options);
    write('pkg0/sub/file0.ts', 'export const v0 = 100;\n');
    write('NEW.md', 'new\n');
    rmSync(path.join(root, 'pkg1/sub/file1.ts'));
    const first = await watch.changes();
    expect(summary(first)).toEqual(['create NEW.md', 'modify pkg0/sub/file0.ts', 'delete pkg1/sub/file1.ts']);
    const edit = first.find((c) => c.path === 'pkg0/sub/file0.ts');
    expect(edit?.before?.toString()).toBe('export const v0 = 0;\n');
    expect(edit?.after?.toString()).toBe('export const v0 = 100;\n');
    expect(first.find((c) => c.operation === 'delete')?.before?.toString()).toBe('export const v1 = 1;\n');

    // The next call's change is its own: nothing of the first is found again.
    write('pkg2/sub/file2.ts', 'changed\n');
    expect(summary(await watch.changes())).toEqual(['modify pkg2/sub/file2.ts']);
    expect(await watch.changes()).toEqual([]);
  });

  it('finds a mode changed alone (an agent\'s own chmod) with the new mode, and again after an edit', async () => {
    const { root, watch, write } = await watched(options);
    chmodSync(path.join(root, 'README.md'), 0o755);
    const changes = await watch.changes();
    expect(summary(changes)).toEqual(['modify README.md']);
    expect(changes[0]?.mode).toBe(0o755);
    write('README.md', 'edited\n');
    expect((await watch.changes())[0]?.mode).toBe(0o755);
    chmodSync(path.join(root, 'README.md'), 0o644);
    expect((await watch.changes()).map((c) => c.mode)).toEqual([0o644]);
  });

  it('finds a rewrite of the same size within the same moment, as a second call makes it', async () => {
    const { watch, write } = await watched(options);
    write('README.md', 'aaaa\n');
    expect(summary(await watch.changes())).toEqual(['modify README.md']);
    write('README.md', 'bbbb\n');
    const second = await watch.changes();
    expect(summary(second)).toEqual(['modify README.md']);
    expect(second[0].after?.toString()).toBe('bbbb\n');
  });

  it('finds files in a new folder tree, a folder removed, a folder renamed, and leaves .git alone', async () => {
    const { root, watch, write } = await watched(options);
    write('src/new/deep/a.ts', 'a\n');
    write('src/new/b.ts', 'b\n');
    write('.git/index', 'binary\n');
    expect(summary(await watch.changes())).toEqual(['create src/new/b.ts', 'create src/new/deep/a.ts']);
    // Written into the new folder after it was first seen: its watcher is already there.
    write('src/new/deep/c.ts', 'c\n');
    expect(summary(await watch.changes())).toEqual(['create src/new/deep/c.ts']);

    rmSync(path.join(root, 'pkg1'), { recursive: true });
    const removed = await watch.changes();
    expect(removed).toHaveLength(10);
    expect(removed.every((c) => c.operation === 'delete' && c.path.startsWith('pkg1/'))).toBe(true);

    renameSync(path.join(root, 'pkg2'), path.join(root, 'lib'));
    const moved = await watch.changes();
    expect(moved).toHaveLength(10);
    expect(moved.every((c) => c.operation === 'rename' && c.oldPath?.startsWith('pkg2/sub/') && c.path.startsWith('lib/sub/'))).toBe(true);
    // The renamed folder is watched where it is now.
    write('lib/sub/file2.ts', 'moved and changed\n');
    expect(summary(await watch.changes())).toEqual(['modify lib/sub/file2.ts']);
  });

  it('finds a folder removed and made again under the same name between two captures', async () => {
    const { root, watch, write } = await watched(options);
    rmSync(path.join(root, 'pkg0'), { recursive: true });
    write('pkg0/sub/file0.ts', 'again\n');
    const changes = await watch.changes();
    expect(summary(changes).filter((c) => c.startsWith('modify'))).toEqual(['modify pkg0/sub/file0.ts']);
    expect(changes.filter((c) => c.operation === 'delete')).toHaveLength(9);
    write('pkg0/sub/later.ts', 'later\n');
    expect(summary(await watch.changes())).toEqual(['create pkg0/sub/later.ts']);
  });
});

describe('SandboxWatch past its notice limit', () => {
  it('scans the whole tree after more notices than it keeps, and misses nothing', async () => {
    const { root, watch, write } = await watched();
    for (let i = 0; i < 2_500; i += 1) {
      write(`pkg0/sub/bulk${i}.txt`, `${i}\n`);
      rmSync(path.join(root, `pkg0/sub/bulk${i}.txt`));
      write(`pkg0/sub/bulk${i}.txt`, `${i}!\n`);
    }
    const changes = await watch.changes();
    expect(changes).toHaveLength(2_500);
    expect(changes.every((c) => c.operation === 'create')).toBe(true);
    write('README.md', 'after\n');
    expect(summary(await watch.changes())).toEqual(['modify README.md']);
  }, 60_000);
});
