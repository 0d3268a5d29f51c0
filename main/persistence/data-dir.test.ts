import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDataDir, SANDBOXES_FOLDER, secureDataDir } from './data-dir';
import { DATABASE_FILE } from './database';
import { openStores } from './stores';
import { makePlan, tempDir } from './test-support/fixtures';

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

describe('secureDataDir: the data directory is private to its user', () => {
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  it('creates the folder, the sandboxes folder and the database (with its WAL files) private', async () => {
    const dir = path.join(tempDir(), 'data');
    secureDataDir(resolveDataDir({ AGENTS_HOME: dir }));
    const stores = openStores(dir);
    await stores.plans.insert(makePlan());
    try {
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(path.join(dir, SANDBOXES_FOLDER))).toBe(0o700);
      const files = readdirSync(dir).filter((name) => name.startsWith(DATABASE_FILE));
      expect(files.sort()).toEqual([DATABASE_FILE, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-wal`]);
      for (const name of files) expect([name, modeOf(path.join(dir, name))]).toEqual([name, 0o600]);
    } finally {
      stores.close();
    }
  });

  it('tightens what an older version left readable by others', async () => {
    const dir = path.join(tempDir(), 'data');
    mkdirSync(path.join(dir, SANDBOXES_FOLDER), { recursive: true, mode: 0o755 });
    const loose = openStores(dir);
    await loose.plans.insert(makePlan());
    chmodSync(dir, 0o755);
    chmodSync(path.join(dir, SANDBOXES_FOLDER), 0o775);
    for (const name of readdirSync(dir).filter((n) => n.startsWith(DATABASE_FILE))) chmodSync(path.join(dir, name), 0o644);
    try {
      secureDataDir(dir);
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(path.join(dir, SANDBOXES_FOLDER))).toBe(0o700);
      for (const name of readdirSync(dir).filter((n) => n.startsWith(DATABASE_FILE))) expect([name, modeOf(path.join(dir, name))]).toEqual([name, 0o600]);
    } finally {
      loose.close();
    }
  });
});
