import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { defaultProjectRoots, parsePort, serveCommand } from './serve-command';
import type { CliIo } from './run-command';
import { tempApp, type TempApp } from '../app/test-support';
import type { RunningServer } from '../web/server';

describe('serveCommand', () => {
  let t: TempApp | undefined;
  afterEach(async () => {
    await t?.dispose();
    t = undefined;
  });

  const io = () => {
    const out = { stdout: '', stderr: '' };
    const cliIo: CliIo = { stdout: (s) => void (out.stdout += s), stderr: (s) => void (out.stderr += s), isTTY: false, env: {} };
    return { out, cliIo };
  };

  it('prints one URL line, opens a browser when asked, and on SIGTERM closes everything and resolves', async () => {
    t = await tempApp();
    const { out, cliIo } = io();
    const signals = new EventEmitter();
    const openBrowser = vi.fn();
    let server: RunningServer | undefined;
    const close = vi.spyOn(t.app, 'close');
    const done = serveCommand(t.app, { host: '127.0.0.1', port: '0', open: true }, cliIo, {
      signals: signals as unknown as NodeJS.Process,
      openBrowser,
      onListening: (s) => (server = s),
    });
    await vi.waitFor(() => expect(server).toBeDefined());
    expect(out.stdout).toBe(`agents console: ${server!.url}\n`);
    expect(out.stdout).toMatch(/^agents console: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(openBrowser).toHaveBeenCalledWith(server!.url);
    // The console's page, or 503 where the renderer is not built.
    expect([200, 503]).toContain((await fetch(server!.url.replace(/\?.*/, ''))).status);
    signals.emit('SIGTERM');
    await done;
    expect(close).toHaveBeenCalled();
    expect(out.stderr).toContain('SIGTERM, shutting down');
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    await expect(fetch(server!.url)).rejects.toThrow();
  });

  it('on an empty data folder creates the demo plans, as npm start does, and says where console plans take their projects', async () => {
    t = await tempApp();
    const { out, cliIo } = io();
    const signals = new EventEmitter();
    let server: RunningServer | undefined;
    const done = serveCommand(t.app, { host: '127.0.0.1', port: '0', projectRoot: [t.root] }, cliIo, { signals: signals as unknown as NodeJS.Process, onListening: (s) => (server = s) });
    await vi.waitFor(() => expect(server).toBeDefined(), { timeout: 30_000 });
    const demo = path.join(t.app.dataDir, 'demo');
    expect(out.stderr).toMatch(/agents serve: demo plan add-license\.yaml: [0-9A-Z]{26}\n/);
    expect(out.stderr).toContain(`agents serve: plans created in the console take their projects from inside ${t.root}, ${demo}; --project-root DIR names others\n`);
    expect((await t.app.service.list()).some((p) => p.projectPath === path.join(demo, 'demo-project'))).toBe(true);
    signals.emit('SIGTERM');
    await done;
  }, 60_000);

  it('with --no-demo, creates no plans', async () => {
    t = await tempApp();
    const { out, cliIo } = io();
    const signals = new EventEmitter();
    let server: RunningServer | undefined;
    const done = serveCommand(t.app, { host: '127.0.0.1', port: '0', demo: false }, cliIo, { signals: signals as unknown as NodeJS.Process, onListening: (s) => (server = s) });
    await vi.waitFor(() => expect(server).toBeDefined());
    expect(out.stderr).not.toContain('demo plan');
    expect(await t.app.service.list()).toEqual([]);
    signals.emit('SIGTERM');
    await done;
  });

  it('takes projects from the home folder and, by default, the folder it was started in (a clone outside the home); never / or a system folder', () => {
    const outside = path.join(tmpdir(), 'clone');
    expect(defaultProjectRoots(outside)).toEqual(homedir() === tmpdir() ? [homedir()] : [homedir(), outside]);
    expect(defaultProjectRoots(path.join(homedir(), 'work'))).toEqual([homedir()]);
    expect(defaultProjectRoots('/')).toEqual([homedir()]);
    expect(defaultProjectRoots('/usr/lib')).toEqual([homedir()]);
  });

  it('names the flag when the port is taken', async () => {
    t = await tempApp();
    const { cliIo } = io();
    const blocker = new (await import('node:net')).Server();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    await expect(serveCommand(t.app, { host: '127.0.0.1', port: String(port) }, cliIo, { signals: new EventEmitter() as unknown as NodeJS.Process })).rejects.toThrow(
      new RegExp(`--port: ${port} is in use`),
    );
    blocker.close();
  });

  it('says at start when shell.run cannot be confined, and why', async () => {
    t = await tempApp();
    const { out, cliIo } = io();
    const signals = new EventEmitter();
    let server: RunningServer | undefined;
    const done = serveCommand(t.app, { host: '127.0.0.1', port: '0' }, cliIo, {
      signals: signals as unknown as NodeJS.Process,
      detectConfinement: async () => ({ ok: false, reason: 'bwrap does not work here (setting up uid map: Permission denied)' }),
      onListening: (s) => (server = s),
    });
    await vi.waitFor(() => expect(server).toBeDefined());
    expect(out.stderr).toContain(
      'agents serve: shell.run cannot be confined here (bwrap does not work here (setting up uid map: Permission denied)); it will refuse to run unless a plan\'s profile sets allowUnconfinedShell: true\n',
    );
    signals.emit('SIGTERM');
    await done;
  });

  it('refuses to bind beyond loopback without --allow-remote', async () => {
    t = await tempApp();
    const { cliIo } = io();
    for (const host of ['0.0.0.0', '::', '192.168.1.5']) {
      await expect(serveCommand(t.app, { host, port: '0' }, cliIo, { signals: new EventEmitter() as unknown as NodeJS.Process })).rejects.toThrow(
        `--host: ${host} is not a loopback address; to serve beyond this machine add --allow-remote NAMES (the host names clients use to reach it)`,
      );
    }
  });

  it('with --allow-remote, warns that the token travels in clear text and answers only the names given', async () => {
    t = await tempApp();
    const { out, cliIo } = io();
    const signals = new EventEmitter();
    let server: RunningServer | undefined;
    const done = serveCommand(t.app, { host: '0.0.0.0', port: '0', allowRemote: 'box.lan, 10.0.0.5' }, cliIo, {
      signals: signals as unknown as NodeJS.Process,
      onListening: (s) => (server = s),
    });
    await vi.waitFor(() => expect(server).toBeDefined());
    expect(out.stderr).toContain('warning: serving beyond this machine over plain HTTP; the access token travels in clear text');
    expect(out.stderr).toContain('answering only Host box.lan, 10.0.0.5 and the loopback names');
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server!.port, path: '/', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect([200, 503]).toContain(await status(`box.lan:${server!.port}`));
    expect(await status(`evil.example:${server!.port}`)).toBe(421);
    signals.emit('SIGTERM');
    await done;
  });

  it.each(['0', '80', '65535'])('accepts port %s', (port) => expect(parsePort(port)).toBe(Number(port)));
  it.each(['', '-1', '65536', '1.5', 'http', '0x50', ' 8 0'])('refuses port %j', (port) => expect(() => parsePort(port)).toThrow(/--port/));
});
