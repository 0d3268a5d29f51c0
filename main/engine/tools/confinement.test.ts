import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs, NODE_MOUNT, probeConfinement, seatbeltProfile } from './confinement';
import { cleanupTempDirs, tempDir } from './test-support';

afterAll(cleanupTempDirs);

describe('finding the confinement', () => {
  it('finds bubblewrap working on this Linux machine', async () => {
    const probe = await probeConfinement('linux');
    expect(probe.ok && probe.confiner.kind).toBe('bwrap');
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

  it('has new namespaces, no capabilities and no network unless allowed, and dies with its parent', () => {
    expect(args()).toEqual(expect.arrayContaining(['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']));
    expect(args()).not.toContain('--share-net');
    expect(args(true)).toContain('--share-net');
  });

  it('on macOS, Seatbelt allows the network only when asked', () => {
    expect(seatbeltProfile(false)).not.toContain('network');
    expect(seatbeltProfile(true)).toContain('(allow network*)');
    expect(seatbeltProfile(false)).toContain('(deny default)');
  });
});
