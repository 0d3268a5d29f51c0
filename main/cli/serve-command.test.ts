import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parsePort, serveCommand } from './serve-command';
import type { CliIo } from './program';
import { tempApp, type TempApp } from '../host/test-support';
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
    t = tempApp();
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
    expect((await fetch(server!.url.replace(/\?.*/, ''))).status).toBeLessThan(600);
    signals.emit('SIGTERM');
    await done;
    expect(close).toHaveBeenCalled();
    expect(out.stderr).toContain('SIGTERM, shutting down');
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    await expect(fetch(server!.url)).rejects.toThrow();
  });

  it('names the flag when the port is taken', async () => {
    t = tempApp();
    const { cliIo } = io();
    const blocker = new (await import('node:net')).Server();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    await expect(serveCommand(t.app, { host: '127.0.0.1', port: String(port) }, cliIo, { signals: new EventEmitter() as unknown as NodeJS.Process })).rejects.toThrow(
      new RegExp(`--port: ${port} is in use`),
    );
    blocker.close();
  });

  it.each(['0', '80', '65535'])('accepts port %s', (port) => expect(parsePort(port)).toBe(Number(port)));
  it.each(['', '-1', '65536', '1.5', 'http', '0x50', ' 8 0'])('refuses port %j', (port) => expect(() => parsePort(port)).toThrow(/--port/));
});
