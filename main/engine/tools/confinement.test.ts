import { chmodSync, chownSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs, type Confiner, detectConfinement, findUnreadable, NODE_MOUNT, NOBODY, probeConfinement, seatbeltProfile } from './confinement';
import { runCommand } from './shell-run';
import { cleanupTempDirs, tempDir } from './test-support';

afterAll(cleanupTempDirs);

describe('finding the confinement', () => {
  it('finds bubblewrap working on this Linux machine', async () => {
    const probe = await probeConfinement('linux');
    expect(probe.ok && probe.confiner.kind).toBe('bwrap-nobody');
  });

  it('says why when bwrap is not installed', async () => {
    expect(await probeConfinement('linux', { bwrap: path.join(tempDir(), 'bwrap') })).toEqual({ ok: false, reason: 'bubblewrap (bwrap) is not installed' });
  });

  it('says why when bwrap is installed but cannot make its namespaces (as on desktops that restrict them)', async () => {
    const refusing = path.join(tempDir(), 'bwrap');
    writeFileSync(refusing, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(refusing, 0o755);
    expect(await probeConfinement('linux', { bwrap: refusing })).toEqual({
      ok: false,
      reason: 'bwrap does not work here (bwrap: setting up uid map: Permission denied); unprivileged user namespaces may be disabled',
    });
  });

  it('has nothing to offer on a system without one', async () => {
    expect(await probeConfinement('win32')).toEqual({ ok: false, reason: 'no confinement is implemented for win32' });
  });
});

describe('the bubblewrap layout', () => {
  const nodeDir = tempDir('agents-node-');
  const args = (allowNetwork = false) => bwrapArgs({ command: 'make', sandboxRoot: '/home/op/.config/cleveragents/sandboxes/P1', allowNetwork }, { nodeDir });
  const pairs = (list: string[], flag: string) => list.flatMap((a, i) => (a === flag ? [list[i + 1]] : []));

  it('starts from an empty root: system folders read-only, only the sandbox writable', () => {
    const list = args();
    expect(pairs(list, '--ro-bind')).not.toContain('/');
    expect(pairs(list, '--ro-bind')).toEqual(expect.arrayContaining(['/usr', '/etc', nodeDir]));
    // The Node that runs us appears at a folder of its own, never at its path in a home folder.
    expect(list[list.indexOf(nodeDir) + 1]).toBe(NODE_MOUNT);
    expect(pairs(list, '--bind')).toEqual(['/home/op/.config/cleveragents/sandboxes/P1']);
    expect(pairs(list, '--tmpfs')).toEqual(['/tmp']);
    expect(pairs(list, '--dir')).toEqual(['/home', '/home/op', '/home/op/.config', '/home/op/.config/cleveragents', '/home/op/.config/cleveragents/sandboxes']);
    expect(pairs(list, '--perms')).toEqual(Array(5).fill('0555'));
    expect(pairs(list, '--chdir')).toEqual(['/home/op/.config/cleveragents/sandboxes/P1']);
    expect(list.slice(-3)).toEqual(['/bin/sh', '-c', 'make']);
  });

  it('binds a folder to read after the private /tmp, so one under /tmp (a checkout there) is not hidden by it', () => {
    const list = bwrapArgs({ command: 'serve', sandboxRoot: '/tmp/data/sandboxes/P1', allowNetwork: false, readOnlyPaths: ['/tmp/checkout/node_modules'] }, { nodeDir });
    const bound = list.findIndex((a, i) => a === '--ro-bind' && list[i + 1] === '/tmp/checkout/node_modules');
    expect(bound).toBeGreaterThan(list.indexOf('--tmpfs'));
  });

    it('has new namespaces, no capabilities and no network unless allowed, and dies with its parent', () => {
    expect(args()).toEqual(expect.arrayContaining(['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']));
    // Its own user namespace, where the command is nobody.
    expect(args().slice(0, 6)).toEqual(['--unshare-all', '--unshare-user', '--uid', String(NOBODY), '--gid', String(NOBODY)]);
    expect(args()).not.toContain('--share-net');
    expect(args(true)).toContain('--share-net');
  });

  it('on macOS, Seatbelt allows the network only when asked', () => {
    expect(seatbeltProfile(false)).not.toContain('network');
    expect(seatbeltProfile(true)).toContain('(allow network*)');
    expect(seatbeltProfile(false)).toContain('(deny default)');
  });
});

// A stand-in for the Node folder (bound at /node) holding what only its owner may read: the walk
// and the covers work the same there as over /etc, without touching the system's folders.
describe('hiding what only root may read', () => {
  const asRoot = process.geteuid?.() === 0;
  const folder = tempDir('agents-node-');
  writeFileSync(path.join(folder, 'public.txt'), 'public\n', { mode: 0o644 });
  writeFileSync(path.join(folder, 'secret.txt'), 'root secret\n', { mode: 0o600 });
  mkdirSync(path.join(folder, 'private'), { mode: 0o700 });
  writeFileSync(path.join(folder, 'private', 'key.pem'), 'private key\n', { mode: 0o644 });
  mkdirSync(path.join(folder, 'listless'), { mode: 0o711 });
  writeFileSync(path.join(folder, 'listless', 'named.txt'), 'named\n', { mode: 0o644 });
  writeFileSync(path.join(folder, 'other-user.txt'), 'another user secret\n', { mode: 0o600 });
  // Another user's private file; only root can give one away.
  if (asRoot) chownSync(path.join(folder, 'other-user.txt'), 1234, 1234);
  const sandbox = tempDir('agents-hide-sandbox-');

  const run = (confiner: Confiner, command: string) =>
    runCommand(command, sandbox, { timeoutMs: 10_000, maxOutputBytes: 64 * 1024, launch: confiner.launch({ command, sandboxRoot: sandbox, allowNetwork: false }) });
  // One walk for the file (it takes seconds over /usr), as the engine makes one per process.
  let probed: Promise<Confiner> | undefined;
  const probe = () =>
    (probed ??= probeConfinement('linux', { nodeDir: folder, hideRootOnly: true }).then((found) => {
      if (!found.ok) throw new Error(found.reason);
      return found.confiner;
    }));

  it('finds every file others may not read and every folder they may not list or enter, not what lies below one', async () => {
    const found = await findUnreadable([{ source: folder, dest: NODE_MOUNT }]);
    expect(found.sort((a, b) => a.dest.localeCompare(b.dest))).toEqual([
      { source: path.join(folder, 'listless'), dest: '/node/listless', dir: true },
      { source: path.join(folder, 'other-user.txt'), dest: '/node/other-user.txt', dir: false },
      { source: path.join(folder, 'private'), dest: '/node/private', dir: true },
      { source: path.join(folder, 'secret.txt'), dest: '/node/secret.txt', dir: false },
    ]);
  });

  it('a command can read none of them, only what others may read', async () => {
    const attempts = ['cat /node/secret.txt', 'cat /node/other-user.txt', 'ls /node/private', 'cat /node/private/key.pem', 'ls /node/listless', 'cat /node/listless/named.txt', 'chmod 644 /node/secret.txt'];
    const result = await run(await probe(), `${attempts.map((a) => `${a}; echo "$?"`).join('; ')}; cat /node/public.txt; id -u`);
    const [statuses, rest] = [result.stdout.toString().split('\n').slice(0, attempts.length), result.stdout.toString().split('\n').slice(attempts.length)];
    expect(statuses.every((status) => Number(status) > 0), statuses.join(',')).toBe(true);
    expect(rest).toEqual(['public', String(NOBODY), '']);
    const errors = result.stderr.toString().trim().split('\n');
    expect(errors).toHaveLength(attempts.length);
    expect(errors.every((line) => /Permission denied|Read-only file system/.test(line)), errors.join('\n')).toBe(true);
  });

  it('still runs when a hidden entry vanished or changed kind after the walk, and hides the rest', async () => {
    const confiner = await probe();
    renameSync(path.join(folder, 'secret.txt'), path.join(folder, 'moved.txt'));
    rmSync(path.join(folder, 'private'), { recursive: true });
    writeFileSync(path.join(folder, 'private'), 'now a file\n', { mode: 0o644 });
    try {
      const result = await run(confiner, 'cat /node/private; ls /node; cat /node/other-user.txt');
      expect(result.stdout.toString()).toBe('now a file\nlistless\nmoved.txt\nother-user.txt\nprivate\npublic.txt\n');
      expect(result.stderr.toString()).toContain('/node/other-user.txt: Permission denied');
    } finally {
      rmSync(path.join(folder, 'private'));
      renameSync(path.join(folder, 'moved.txt'), path.join(folder, 'secret.txt'));
    }
  });

  it.runIf(process.platform === 'linux')('as the engine runs now, the system’s root-only files are hidden from the detected layout', async () => {
    const found = await detectConfinement();
    if (!found.ok) throw new Error(found.reason);
    const result = await run(found.confiner, 'cat /etc/shadow; cat /etc/gshadow; ls /etc/ssl/private; ls /root');
    expect(result.stdout.toString()).toBe('');
    expect(result.stderr.toString().trim().split('\n')).toEqual([
      expect.stringMatching(/cat: \/etc\/shadow: (Permission denied|No such file)/),
      expect.stringMatching(/cat: \/etc\/gshadow: (Permission denied|No such file)/),
      expect.stringMatching(/ls: cannot (open directory|access) '\/etc\/ssl\/private': (Permission denied|No such file)/),
      expect.stringMatching(/ls: cannot access '\/root': No such file or directory/),
    ]);
  });
});

describe('a find that cannot walk for what to hide', () => {
  const standIn = (script: string): string => {
    const find = path.join(tempDir('agents-find-'), 'find');
    writeFileSync(find, `#!/bin/sh\n${script}\n`);
    chmodSync(find, 0o755);
    return find;
  };
  const mounts = () => [{ source: tempDir('agents-find-mount-'), dest: NODE_MOUNT }];

  it('fails, with the line find printed, where find (as BusyBox find) refuses -printf', async () => {
    const busybox = standIn('echo "find: unrecognized: -printf" >&2\nexit 1');
    const [mount] = mounts();
    await expect(findUnreadable([mount], busybox)).rejects.toThrow(`${busybox} failed on ${mount.source}: find: unrecognized: -printf`);
  });

  it('fails where find exits non-zero having printed nothing, though it said nothing either', async () => {
    const silent = standIn('exit 2');
    await expect(findUnreadable(mounts(), silent)).rejects.toThrow(/failed on .*: exit status 2$/);
  });

  it('keeps what was found when the only complaint is an entry that vanished during the walk', async () => {
    const [mount] = mounts();
    const vanished = standIn(`printf 'f${mount.source}/secret\\0'\necho "find: '${mount.source}/gone': No such file or directory" >&2\nexit 1`);
    expect(await findUnreadable([mount], vanished)).toEqual([{ source: `${mount.source}/secret`, dest: '/node/secret', dir: false }]);
  });

  it.runIf(process.platform === 'linux')('makes the probe refuse the shell in one line, rather than leave root-only files readable', async () => {
    const probe = await probeConfinement('linux', { hideRootOnly: true, nodeDir: tempDir('agents-find-node-'), find: standIn('echo "find: unrecognized: -printf" >&2\nexit 1') });
    expect(probe.ok).toBe(false);
    if (!probe.ok) expect(probe.reason).toMatch(/^cannot list the files only root may read, to hide them \(.*find failed on .*: find: unrecognized: -printf\)$/);
  });
});
