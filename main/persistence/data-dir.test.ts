import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDataDir } from './data-dir';
import { tempDir } from './test-support/fixtures';

describe('resolveDataDir', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('uses $AGENTS_HOME and creates it', () => {
    const root = tempDir();
    dirs.push(root);
    const home = path.join(root, 'a', 'b');
    expect(resolveDataDir({ AGENTS_HOME: home })).toBe(home);
    expect(existsSync(home)).toBe(true);
  });

  it('makes a relative $AGENTS_HOME absolute', () => {
    expect(resolveDataDir({ AGENTS_HOME: 'rel/dir' }, { create: false })).toBe(path.resolve('rel/dir'));
  });

  it('ignores an empty $AGENTS_HOME', () => {
    expect(resolveDataDir({ AGENTS_HOME: '' }, { platform: 'linux', homedir: '/home/op', create: false })).toBe('/home/op/.config/cleveragents');
  });

  it('follows each platform\'s user-data folder', () => {
    const opts = { homedir: '/home/op', create: false } as const;
    expect(resolveDataDir({}, { ...opts, platform: 'linux' })).toBe('/home/op/.config/cleveragents');
    expect(resolveDataDir({ XDG_CONFIG_HOME: '/xdg' }, { ...opts, platform: 'linux' })).toBe('/xdg/cleveragents');
    expect(resolveDataDir({ XDG_CONFIG_HOME: 'relative' }, { ...opts, platform: 'linux' })).toBe('/home/op/.config/cleveragents');
    expect(resolveDataDir({}, { ...opts, platform: 'darwin' })).toBe('/home/op/Library/Application Support/cleveragents');
    expect(resolveDataDir({ APPDATA: 'C:\\Users\\op\\AppData\\Roaming' }, { platform: 'win32', homedir: 'C:\\Users\\op', create: false })).toBe(
      'C:\\Users\\op\\AppData\\Roaming\\cleveragents',
    );
    expect(resolveDataDir({}, { platform: 'win32', homedir: 'C:\\Users\\op', create: false })).toBe('C:\\Users\\op\\AppData\\Roaming\\cleveragents');
  });

  it('creates the platform folder on first use', () => {
    const home = tempDir();
    dirs.push(home);
    const dir = resolveDataDir({}, { platform: 'linux', homedir: home });
    expect(dir).toBe(path.join(home, '.config', 'cleveragents'));
    expect(existsSync(dir)).toBe(true);
  });
});
