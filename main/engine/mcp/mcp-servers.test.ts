// The MCP session against real servers: the filesystem server from npm and a probe server built on
// the official SDK, run confined by bubblewrap over a real temp sandbox, and the probe over
// streamable HTTP on 127.0.0.1. Calls go through the real ToolRunner.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type AutomationProfile, BUILTIN_PROFILES } from '../../../shared/profiles';
import { probeServer } from '../../../tests/support/mcp-probe-server.mjs';
import type { EngineError } from '../errors';
import { InMemoryInvocationLog } from '../test-support/in-memory-stores';
import type { CapturedChange } from '../tools/definition';
import { ToolRegistry, ToolRunner } from '../run/tool-runner';
import { registerBuiltinTools } from '../tools';
import { cleanupTempDirs, tempDir } from '../tools/test-support';
import { installationFolder, resolveLocalCommand } from './launch';
import { McpSession } from './mcp-servers';

const ROOT = path.resolve(__dirname, '../../..');
const FILESYSTEM = { command: path.join(ROOT, 'node_modules/.bin/mcp-server-filesystem'), args: ['.'], env: {} };
const PROBE = { command: process.execPath, args: [path.join(ROOT, 'tests/support/mcp-probe-server.mjs')], env: {} };
const profile: AutomationProfile = { ...BUILTIN_PROFILES.trusted, approvalRequired: [] };
const sessions: McpSession[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  for (const s of servers.splice(0)) s.close();
  cleanupTempDirs();
});

function setup(config: ConstructorParameters<typeof McpSession>[0], runProfile = profile) {
  const sandbox = realpathSync(tempDir('agents-mcp-'));
  const registry = registerBuiltinTools(new ToolRegistry());
  const session = new McpSession(config, registry, { sandboxRoot: sandbox, profile: runProfile });
  sessions.push(session);
  const runner = new ToolRunner(registry, new InMemoryInvocationLog());
  const changes: CapturedChange[] = [];
  const call = async (tool: string, args: Record<string, unknown>) =>
    await runner.execute({ tool, args }, { planId: 'P', decisionId: 'D', sandboxRoot: sandbox, profile, recordChange: async (change) => void changes.push(change) });
  return { sandbox, registry, session, runner, changes, call };
}

/** Host pids of live (not zombie) processes whose command line contains `marker`. */
function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('should have failed'), (e: unknown) => e as EngineError & { cause?: EngineError });

describe('the MCP servers of a run', () => {
  it('adds each server tool as NAME.TOOL beside the sandbox tools, with what the approval shows', async () => {
    const { registry, session } = setup({ files: FILESYSTEM });
    expect(registry.get('files.write_file')).toBeUndefined();
    await session.start();
    expect(registry.names()).toEqual(expect.arrayContaining(['file.write', 'shell.run', 'files.write_file', 'files.list_directory']));
    expect(registry.get('files.write_file')).toMatchObject({ effect: 'exec', mcp: { server: 'files', tool: 'write_file', readOnly: false } });
    expect(registry.get('files.list_directory')?.mcp?.readOnly).toBe(true);
    // Its schema is the server's: a call without content is bad input before the server sees it.
    expect(registry.get('files.write_file')?.schema.safeParse({ path: 'a' }).success).toBe(false);
  });

  it('runs a call confined over the sandbox and captures the file it writes as a change', async () => {
    const { sandbox, session, call, changes } = setup({ files: FILESYSTEM });
    await session.start();
    const invocation = await call('files.write_file', { path: 'notes.md', content: 'hello\n' });
    expect(invocation).toMatchObject({ tool: 'files.write_file', ok: true, confinement: 'bwrap-nobody' });
    expect(readFileSync(path.join(sandbox, 'notes.md'), 'utf8')).toBe('hello\n');
    expect(changes.map((c) => [c.operation, c.path, c.after?.toString()])).toEqual([['create', 'notes.md', 'hello\n']]);
    // The server's own refusal goes back as a tool error naming the tool.
    const outside = await failure(call('files.write_file', { path: '/etc/evil', content: 'x' }));
    expect(outside.message).toMatch(/^files\.write_file: .*Access denied/);
  });

  it('confines a local server: it writes only in the sandbox and reaches no network', async () => {
    const { sandbox, session, call } = setup({ probe: PROBE });
    await session.start();
    const outsideDir = realpathSync(tempDir('agents-mcp-outside-'));
    const denied = await failure(call('probe.write', { path: path.join(outsideDir, 'x'), content: 'x' }));
    expect(denied.message).toMatch(/^probe\.write: cannot write .*: (EROFS|ENOENT|EACCES)/);
    expect(existsSync(path.join(outsideDir, 'x'))).toBe(false);
    expect((await call('probe.write', { path: path.join(sandbox, 'in.txt'), content: 'in' })).ok).toBe(true);

    const listener = createServer().listen(0, '127.0.0.1');
    servers.push(listener);
    await new Promise((resolve) => listener.once('listening', resolve));
    const port = (listener.address() as AddressInfo).port;
    const offline = await failure(call('probe.connect', { port }));
    expect(offline.message).toMatch(/cannot connect: (ECONNREFUSED|ENETUNREACH)/);

    // A profile that allows the network lets the server reach it.
    const online = setup({ probe: PROBE }, { ...profile, allowNetwork: true });
    await online.session.start();
    expect((await online.call('probe.connect', { port })).result).toBe('connected');
  });

  it('fails a call that hangs past its time limit, naming the server, and stops the server at close', async () => {
    const { session, call, sandbox } = setup({ probe: { ...PROBE, timeoutMs: 500 } });
    await session.start();
    const started = performance.now();
    const hung = await failure(call('probe.hang', {}));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(hung.cause).toMatchObject({ category: 'transient', details: { server: 'probe', hint: expect.stringContaining('The MCP server "probe" failed') } });
    expect(hung.message).toBe('probe.hang: the MCP server "probe" did not answer within 500 ms');
    // bubblewrap's command line names the sandbox it binds: that process is running now.
    expect(processesNaming(sandbox).length).toBeGreaterThan(0);
    await session.close();
    expect(await eventually(() => processesNaming(sandbox).length === 0)).toBe(true);
    const closed = await failure(call('probe.echo', { text: 'still there?' }));
    expect(closed.cause?.category).toBe('transient');
  });

  it('speaks streamable HTTP to a remote server', async () => {
    const http = createServer((req, res) => {
      // Stateless: a server and a transport per request, as the SDK's examples do.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const mcp = probeServer();
      res.on('close', () => void transport.close().then(() => mcp.close()));
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    servers.push(http);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const { session, call } = setup({ remote: { url, headers: { 'X-Test': '1' } } });
    await session.start();
    expect((await call('remote.echo', { text: 'over http' })).result).toBe('over http');
  });

  it("speaks to a URL with a user and password by Basic auth, and never repeats the URL's secrets in a failure", async () => {
    const seen: string[] = [];
    const http = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      if (req.headers.authorization !== `Basic ${Buffer.from('u:PASS WD').toString('base64')}`) {
        // A server that echoes what it was asked, as some do in their refusals.
        res.writeHead(401).end(`no access to ${req.url} for ${req.headers.authorization}`);
        return;
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const mcp = probeServer();
      res.on('close', () => void transport.close().then(() => mcp.close()));
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    servers.push(http);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const base = `127.0.0.1:${(http.address() as AddressInfo).port}/s/PATHTOKEN/mcp?k=QSECRET`;
    const { session, call } = setup({ remote: { url: `http://u:PASS%20WD@${base}`, headers: {} } });
    await session.start();
    expect((await call('remote.echo', { text: 'with basic auth' })).result).toBe('with basic auth');
    expect(seen[0]).toBe(`/s/PATHTOKEN/mcp?k=QSECRET Basic ${Buffer.from('u:PASS WD').toString('base64')}`);

    // A wrong password: the refusal is shown with the URL as scheme://host:port/path and no secret.
    const wrong = setup({ remote: { url: `http://u:WRONGPW@${base}`, headers: {} } });
    const refused = await failure(wrong.session.start());
    expect(refused).toMatchObject({ category: 'tool', details: { server: 'remote', url: `http://(set)@${base.replace('PATHTOKEN', '(hidden)').replace('QSECRET', '(set)')}` } });
    expect(refused.message).toMatch(/^MCP server "remote": did not start: .*HTTP 401/);
    const shown = JSON.stringify({ message: refused.message, details: refused.details });
    for (const secret of ['WRONGPW', 'PATHTOKEN', 'QSECRET', Buffer.from('u:WRONGPW').toString('base64')]) expect(shown).not.toContain(secret);
    // A header the server's entry gives wins over the URL's user.
    const given = setup({ remote: { url: `http://u:WRONGPW@${base}`, headers: { authorization: `Basic ${Buffer.from('u:PASS WD').toString('base64')}` } } });
    await given.session.start();
    expect((await given.call('remote.echo', { text: 'header wins' })).result).toBe('header wins');
  });

  it('fails to start with an error that names the server: a missing command, a server that exits', async () => {
    const missing = setup({ gone: { command: '/nonexistent/server', args: [], env: {} } });
    const notFound = await failure(missing.session.start());
    expect(notFound).toMatchObject({ category: 'tool', details: { server: 'gone' } });
    expect(notFound.message).toMatch(/^MCP server "gone": did not start \(\/nonexistent\/server\): it exited before answering; it said: .*not found/);
    // Every later caller gets the same failure; nothing is left half-registered.
    await expect(missing.session.start()).rejects.toBe(notFound);
    // A profile that runs no commands starts no local server.
    const restricted = setup({ probe: PROBE }, BUILTIN_PROFILES.restricted);
    expect(await failure(restricted.session.start())).toMatchObject({ category: 'policy', message: 'MCP server "probe": refused: the automation profile runs no commands, and a local server is one' });
    const quits = setup({ quits: { command: '/bin/sh', args: ['-c', 'echo no config >&2; exit 3'], env: {} } });
    expect((await failure(quits.session.start())).message).toBe('MCP server "quits": did not start (/bin/sh): it exited before answering; it said: no config');
  });
});

describe('where nothing confines a local server', () => {
  const none = async () => ({ ok: false as const, reason: 'bubblewrap (bwrap) is not installed' });

  it('refuses it, unless the profile allows unconfined commands; then it runs with none of our environment', async () => {
    const sandbox = realpathSync(tempDir('agents-mcp-'));
    const refused = new McpSession({ probe: PROBE }, new ToolRegistry(), { sandboxRoot: sandbox, profile, confinement: none });
    sessions.push(refused);
    expect(await failure(refused.start())).toMatchObject({ category: 'policy', message: expect.stringContaining('MCP server "probe": refused: a local server cannot be confined here (bubblewrap (bwrap) is not installed)') });

    process.env.AGENTS_TEST_SECRET = 'not for servers';
    try {
      const registry = new ToolRegistry();
      const allowed = new McpSession({ env: { command: '/bin/sh', args: ['-c', `exec ${process.execPath} ${PROBE.args[0]}`], env: {} } }, registry, { sandboxRoot: sandbox, profile: { ...profile, allowUnconfinedShell: true }, confinement: none });
      sessions.push(allowed);
      await allowed.start();
      const runner = new ToolRunner(registry, new InMemoryInvocationLog());
      const invocation = await runner.execute({ tool: 'env.echo', args: { text: 'hi' } }, { planId: 'P', decisionId: 'D', sandboxRoot: sandbox, profile });
      expect(invocation).toMatchObject({ ok: true, result: 'hi', confinement: 'none' });
      const secret = await runner.execute({ tool: 'env.getenv', args: { name: 'AGENTS_TEST_SECRET' } }, { planId: 'P', decisionId: 'D', sandboxRoot: sandbox, profile });
      expect(secret.result).toBe('(unset)');
      const home = await runner.execute({ tool: 'env.getenv', args: { name: 'HOME' } }, { planId: 'P', decisionId: 'D', sandboxRoot: sandbox, profile });
      expect(home.result).toBe(sandbox);
    } finally {
      delete process.env.AGENTS_TEST_SECRET;
    }
  });
});

describe('where a local server is installed', () => {
  it('is the outermost node_modules for a package from npm, with the script an interpreter runs', () => {
    expect(installationFolder('/srv/app/node_modules/@scope/pkg/dist/index.js')).toBe('/srv/app/node_modules');
    const resolved = resolveLocalCommand(FILESYSTEM.command, ['.'], ROOT);
    expect(resolved.file).toBe(realpathSync(FILESYSTEM.command));
    expect(resolved.args).toEqual(['.']);
    expect(resolved.readable).toEqual([realpathSync(path.join(ROOT, 'node_modules'))]);
    const probe = resolveLocalCommand('node', ['tests/support/mcp-probe-server.mjs'], ROOT);
    expect(probe.args[0]).toBe(path.join(realpathSync(ROOT), 'tests/support/mcp-probe-server.mjs'));
    expect(probe.readable).toContain(realpathSync(ROOT));
  });

  it('never reaches up to the home folder or above it for a package.json', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'agents-home-'));
    try {
      writeFileSync(path.join(home, 'package.json'), '{}');
      mkdirSync(path.join(home, 'code', 'tools'), { recursive: true });
      const script = path.join(home, 'code', 'tools', 'mcp.js');
      writeFileSync(script, '');
      expect(installationFolder(script, home)).toBe(path.join(home, 'code', 'tools'));
      writeFileSync(path.join(home, 'code', 'package.json'), '{}');
      expect(installationFolder(script, home)).toBe(path.join(home, 'code'));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a local server whose script is straight in the home folder', () => {
  /** A home folder with a private key (0600) and, beside .ssh, a server script. */
  function homeWithKey(): { home: string; script: string; key: string } {
    const home = realpathSync(tempDir('agents-home-'));
    mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
    const key = path.join(home, '.ssh', 'id_rsa');
    writeFileSync(key, 'PRIVATE KEY OF THE OPERATOR\n', { mode: 0o600 });
    const script = path.join(home, 'server.mjs');
    copyFileSync(path.join(ROOT, 'tests/support/mcp-bare-server.mjs'), script);
    return { home, script, key };
  }

  it('makes only the script readable, never its folder, when that is the home folder, above it, or /', () => {
    const { home, script } = homeWithKey();
    expect(installationFolder(script, home)).toBe(script);
    expect(resolveLocalCommand('node', [script], ROOT, home).readable).toContain(script);
    expect(resolveLocalCommand('node', [script], ROOT, home).readable).not.toContain(home);
    expect(installationFolder('/server.mjs', home)).toBe('/server.mjs');
    expect(installationFolder(path.join(path.dirname(home), 'server.mjs'), home)).toBe(path.join(path.dirname(home), 'server.mjs'));
    // A folder of its own in the home folder is still read whole.
    mkdirSync(path.join(home, 'tools'));
    expect(installationFolder(path.join(home, 'tools', 'server.mjs'), home)).toBe(path.join(home, 'tools'));
  });

  it('runs confined and cannot read a private file of the home folder', async () => {
    const { home, script, key } = homeWithKey();
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const { session, registry } = setup({ leak: { command: 'node', args: [script], env: { PROBE_FILE: key } } });
      await session.start();
      // The script ran (so it was readable), and the key beside it is not there.
      expect(registry.get('leak.probe')?.description).toBe('unreadable: ENOENT');
    } finally {
      process.env.HOME = before;
    }
  });
});
