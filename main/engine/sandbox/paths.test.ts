import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../errors';
import { cleanupTempDirs, tempDir } from '../tools/test-support';
import { normalizeRelPath, resolveInSandbox } from './paths';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(tempDir('agents-paths-'));
  root = path.join(base, 'sandbox');
  outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'src', 'a.txt'), 'a');
});
afterEach(cleanupTempDirs);

async function refusal(relPath: string, options = {}): Promise<EngineError> {
  const error = await resolveInSandbox(root, relPath, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('resolveInSandbox', () => {
  it('resolves plain, nested, not-yet-existing and dot-dot-inside paths below the real root', async () => {
    expect(await resolveInSandbox(root, 'src/a.txt')).toEqual({ absolute: path.join(root, 'src/a.txt'), relative: 'src/a.txt', root });
    expect((await resolveInSandbox(root, 'new/deep/file.txt', { forWrite: true })).relative).toBe('new/deep/file.txt');
    expect((await resolveInSandbox(root, './src/../src//a.txt')).relative).toBe('src/a.txt');
    expect((await resolveInSandbox(root, '.')).relative).toBe('.');
  });

  it('names the path and the rule it breaks', async () => {
    const error = await refusal('../x');
    expect(error.message).toBe('path "../x": escapes the sandbox (.. outside the root)');
    expect(error.category).toBe('policy');
  });

  it.each([
    ['src/../../x', 'escapes the sandbox (.. outside the root)', 'policy'],
    ['/etc/passwd', 'is absolute', 'policy'],
    ['C:\\Windows', 'is absolute', 'policy'],
    ['', 'is empty', 'validation'],
    ['a\0b', 'contains a NUL byte', 'validation'],
    [`${'a/'.repeat(2049)}x`, 'bytes long (the limit is 4096)', 'validation'],
    [`dir/${'x'.repeat(256)}`, 'is longer than 255 bytes', 'validation'],
  ])('refuses %j: %s', async (relPath, rule, category) => {
    const error = await refusal(relPath);
    expect(error.message).toContain(rule);
    expect(error.message).toContain(JSON.stringify(relPath).slice(0, 40));
    expect(error.category).toBe(category);
  });

  it('follows symlinks that stay inside, and records the real path', async () => {
    symlinkSync('src', path.join(root, 'alias'));
    symlinkSync(path.join(root, 'src', 'a.txt'), path.join(root, 'abs-link'));
    expect((await resolveInSandbox(root, 'alias/a.txt')).relative).toBe('src/a.txt');
    expect((await resolveInSandbox(root, 'abs-link')).relative).toBe('src/a.txt');
  });

  it('refuses symlinks leading outside: absolute, relative, dangling, chained, and as a directory', async () => {
    symlinkSync('/etc', path.join(root, 'etc'));
    symlinkSync('../outside', path.join(root, 'rel'));
    symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
    symlinkSync('rel', path.join(root, 'chain'));
    for (const p of ['etc/passwd', 'rel/x.txt', 'dangling', 'chain/x.txt']) {
      const error = await refusal(p, { forWrite: true });
      expect(error.category).toBe('policy');
      expect(error.message).toMatch(new RegExp(`^path "${p}": resolves outside the sandbox through symlink`));
    }
  });

  it('judges a symlink at the moment of use, even one made a moment ago', async () => {
    await resolveInSandbox(root, 'late/x.txt', { forWrite: true });
    symlinkSync(outside, path.join(root, 'late'));
    expect((await refusal('late/x.txt', { forWrite: true })).message).toContain('through symlink "late"');
  });

  it('refuses a symlink loop instead of spinning', async () => {
    symlinkSync('loop-b', path.join(root, 'loop-a'));
    symlinkSync('loop-a', path.join(root, 'loop-b'));
    expect((await refusal('loop-a/x')).message).toContain('symlink hops');
  });

  it('with followFinal: false, resolves to the link itself', async () => {
    symlinkSync(path.join(outside, 'secret'), path.join(root, 'link'));
    expect((await resolveInSandbox(root, 'link', { followFinal: false })).relative).toBe('link');
  });

  it('keeps writes off the root itself and out of .git', async () => {
    expect((await refusal('.', { forWrite: true })).message).toContain('is the sandbox root itself');
    expect((await refusal('.git/hooks/pre-commit', { forWrite: true })).message).toContain('is inside .git');
    mkdirSync(path.join(root, '.git'));
    symlinkSync('.git', path.join(root, 'meta'));
    expect((await refusal('meta/config', { forWrite: true })).message).toContain('resolves inside .git');
    expect((await resolveInSandbox(root, '.git/config')).relative).toBe('.git/config');
  });

  it('works when the sandbox root itself is reached through a symlink', async () => {
    symlinkSync(root, path.join(base, 'root-link'));
    expect(await resolveInSandbox(path.join(base, 'root-link'), 'src/a.txt')).toMatchObject({ absolute: path.join(root, 'src/a.txt'), root });
  });
});

describe('normalizeRelPath', () => {
  it('folds . and .. lexically', () => {
    expect(normalizeRelPath('a/./b/../c')).toEqual(['a', 'c']);
  });
});
