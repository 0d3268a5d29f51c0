import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkProjectDir, DEFAULT_MAX_PROJECT_BYTES, maxProjectBytesFrom, resolveProjectDir } from './project-policy';

const scratch = mkdtempSync(path.join(tmpdir(), 'agents-policy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('checkProjectDir, for every plan (the command line too)', () => {
  it.each([
    ['/', 'project: must not be the root of the file system'],
    ['/etc', 'project: must not be a system folder (/etc)'],
    ['/usr/lib', 'project: must not be a system folder (/usr)'],
    [homedir(), 'project: must not be the home folder itself; name the project folder inside it'],
  ])('refuses %s', (project, message) => {
    expect(() => checkProjectDir(project, 'project')).toThrow(message);
  });

  it('judges where a symlink leads, not its name', () => {
    const link = path.join(scratch, 'innocent');
    symlinkSync('/etc', link);
    expect(() => checkProjectDir(link, 'project')).toThrow('must not be a system folder (/etc)');
  });

  it('takes an ordinary project folder', () => {
    expect(() => checkProjectDir(scratch, 'project')).not.toThrow();
  });
});

describe('checkProjectDir with project roots, for plans from the console', () => {
  it('takes a folder inside a root, and refuses the root itself and anything outside it', () => {
    const policy = { roots: [scratch] };
    expect(() => checkProjectDir(path.join(scratch, 'app'), 'project', policy)).not.toThrow();
    for (const outside of [scratch, tmpdir(), '/nowhere/at/all']) {
      expect(() => checkProjectDir(outside, 'project', policy)).toThrow('project: must be a folder inside the project root');
    }
  });

  it('refuses a link inside a root that leads out of it', () => {
    const link = path.join(scratch, 'out');
    symlinkSync(tmpdir(), link);
    expect(() => checkProjectDir(link, 'project', { roots: [scratch] })).toThrow('must be a folder inside the project root');
  });
});

describe('resolveProjectDir: where a relative project is', () => {
  it('is under the base folder for the command line', () => {
    expect(resolveProjectDir('./demo', '/plans')).toEqual({ path: '/plans/demo', tried: ['/plans/demo'] });
    expect(resolveProjectDir('/abs/demo', '/plans')).toEqual({ path: '/abs/demo', tried: ['/abs/demo'] });
  });

  it("for the console, is the first of the base folder and the roots that has it, looking only inside the roots", () => {
    const real = realpathSync(scratch);
    const [one, two] = ['one', 'two'].map((name) => path.join(real, name));
    mkdirSync(path.join(two, 'demo'), { recursive: true });
    mkdirSync(one, { recursive: true });
    const policy = { roots: [one, two] };
    expect(resolveProjectDir('./demo', '/plans', policy)).toEqual({ path: path.join(two, 'demo'), tried: [path.join(one, 'demo'), path.join(two, 'demo')] });
    // Nowhere: the first place tried, and every place named.
    expect(resolveProjectDir('nope', one, policy)).toEqual({ path: path.join(one, 'nope'), tried: [path.join(one, 'nope'), path.join(two, 'nope')] });
    // Out of every root: not looked at, and the policy check refuses it.
    expect(resolveProjectDir('../../etc', one, policy).path).toBe(path.resolve(one, '../../etc'));
  });
});

describe('the project size limit', () => {
  it('is 1 GiB unless AGENTS_MAX_PROJECT_BYTES says otherwise', () => {
    expect(DEFAULT_MAX_PROJECT_BYTES).toBe(1024 ** 3);
    expect(maxProjectBytesFrom({})).toBe(1024 ** 3);
    expect(maxProjectBytesFrom({ AGENTS_MAX_PROJECT_BYTES: ' 5000 ' })).toBe(5000);
    for (const bad of ['0', '-1', '1.5', '1GiB']) {
      expect(() => maxProjectBytesFrom({ AGENTS_MAX_PROJECT_BYTES: bad })).toThrow('AGENTS_MAX_PROJECT_BYTES: must be a positive whole number of bytes');
    }
  });
});
