// A long-lived agent's process, confined for real: a Node script run under bubblewrap with its
// network limited to named host:ports, relayed to servers on this machine's 127.0.0.1.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type AgentProcessRequest, type ConfinedAgentProcess, hostsFromEnv, parseHostPort, planNetwork, startAgent, startConfinedAgent, startUnconfinedAgent } from './agent-process';
import { probeConfinement, sandboxExecConfiner } from './confinement';
import { cleanupTempDirs, tempDir } from './test-support';

/** Reports what it could reach and write as one JSON line, leaves a grandchild beating in the sandbox (in a session of its own with `setsid`), then echoes stdin. */
const PROBE = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const [allowed, other, outside, detach] = process.argv.slice(2);
const reach = async (url) => { try { return await (await fetch(url)).text(); } catch (e) { return 'failed: ' + (e.cause?.code ?? e.message); } };
const write = (file) => { try { writeFileSync(file, 'x'); return 'written'; } catch (e) { return e.code; } };
const report = {
  allowed: await reach(allowed),
  other: await reach(other),
  sandbox: write('in-sandbox.txt'),
  home: write(process.env.HOME + '/in-home.txt'),
  beside: write(outside),
  installation: write(new URL('written.txt', import.meta.url).pathname),
  home_env: process.env.HOME,
};
spawn('/bin/sh', ['-c', 'while :; do date +%s%N > beat; sleep 0.05; done'], { stdio: 'ignore', detached: detach === 'setsid' });
console.log(JSON.stringify(report));
createInterface({ input: process.stdin }).on('line', (line) => console.log('echo ' + line));
`;

const servers: Server[] = [];
const agents: ConfinedAgentProcess[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.dispose()));
  for (const server of servers.splice(0)) server.close();
});
afterAll(cleanupTempDirs);

async function serve(name: string): Promise<number> {
  const server = createServer((_req, res) => res.end(`hello from ${name}`));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Listens on the first free port from 900 (root may). */
async function lowPort(server: Server): Promise<number> {
  for (let port = 900; port < 1024; port++) {
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return port;
  }
  throw new Error('no free port below 1024');
}

function setup(): { sandbox: string; home: string; script: string; outside: string } {
  const root = realpathSync(tempDir('agents-agent-'));
  const sandbox = path.join(root, 'sandbox');
  const install = path.join(root, 'install');
  mkdirSync(sandbox);
  mkdirSync(install);
  const script = path.join(install, 'probe.mjs');
  writeFileSync(script, PROBE);
  return { sandbox, home: path.join(root, 'home'), script, outside: path.join(root, 'outside.txt') };
}

/** The first line the agent prints, parsed. */
function firstLine(agent: ConfinedAgentProcess): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    agent.child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    agent.child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(out.slice(0, end)) as Record<string, string>);
    });
    void agent.exited.then((exit) => reject(new Error(`the agent exited (${JSON.stringify(exit)}): ${err}`)));
  });
}

async function heartbeatStopped(sandbox: string): Promise<boolean> {
  const beat = path.join(sandbox, 'beat');
  const read = () => (existsSync(beat) ? readFileSync(beat, 'utf8') : '');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = read();
  await new Promise((resolve) => setTimeout(resolve, 300));
  return read() === before;
}

describe('an agent confined with a network allowlist', () => {
  it('reaches its allowed port and no other, writes only in its sandbox and home, and leaves nothing running after dispose', async () => {
    const allowed = await serve('the model');
    const other = await serve('another service');
    const { sandbox, home, script, outside } = setup();
    const request: AgentProcessRequest = {
      file: process.execPath,
      // The grandchild leaves the agent's session and process group: the PID namespace still ends it.
      args: [script, `http://127.0.0.1:${allowed}/`, `http://127.0.0.1:${other}/`, outside, 'setsid'],
      env: { MODEL_BASE_URL: `http://127.0.0.1:${allowed}` },
      sandboxRoot: sandbox,
      home,
      readOnlyPaths: [],
      // The base URL's address is allowed without being listed.
      allowHosts: [],
      allowNetwork: false,
    };
    const agent = await startConfinedAgent(request);
    agents.push(agent);
    expect(agent.confinement).toBe('bwrap-nobody');
    const report = await firstLine(agent);
    expect(report).toEqual({ allowed: 'hello from the model', other: 'failed: ECONNREFUSED', sandbox: 'written', home: 'written', beside: 'EACCES', installation: 'EROFS', home_env: home });
    expect(readFileSync(path.join(home, 'in-home.txt'), 'utf8')).toBe('x');
    expect(existsSync(outside)).toBe(false);

    const echoed = new Promise<string>((resolve) => agent.child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('echo ping') && resolve('echoed')));
    agent.child.stdin.write('ping\n');
    expect(await echoed).toBe('echoed');

    expect(await heartbeatStopped(sandbox)).toBe(false);
    await agent.dispose();
    expect(await agent.exited).toMatchObject({ code: null });
    expect(await heartbeatStopped(sandbox)).toBe(true);
  });

  it('reaches nothing when nothing is allowed, and everything when the network is', async () => {
    const port = await serve('the model');
    const { sandbox, home, script, outside } = setup();
    const base = { file: process.execPath, args: [script, `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/`, outside], env: {}, sandboxRoot: sandbox, home, readOnlyPaths: [] };
    const closed = await startConfinedAgent({ ...base, allowHosts: [], allowNetwork: false });
    agents.push(closed);
    expect(await firstLine(closed)).toMatchObject({ allowed: 'failed: ECONNREFUSED', sandbox: 'written' });
    const open = await startConfinedAgent({ ...base, allowHosts: [], allowNetwork: true });
    agents.push(open);
    expect(await firstLine(open)).toMatchObject({ allowed: 'hello from the model', other: 'hello from the model', installation: 'EROFS' });
  });

  // Port 80-style addresses (an API's 443) need a namespace prepared as root: a port below 1024 opened to the agent's user.
  it.runIf(process.geteuid?.() === 0)('reaches an allowed port below 1024 by the name localhost, in a namespace prepared for it', async () => {
    const server = createServer((_req, res) => res.end('hello from a low port'));
    servers.push(server);
    const port = await lowPort(server);
    const other = await serve('another service');
    const { sandbox, home, script, outside } = setup();
    const agent = await startConfinedAgent({ file: process.execPath, args: [script, `http://localhost:${port}/`, `http://127.0.0.1:${other}/`, outside], env: {}, sandboxRoot: sandbox, home, readOnlyPaths: [], allowHosts: [`localhost:${port}`], allowNetwork: false });
    agents.push(agent);
    expect(await firstLine(agent)).toMatchObject({ allowed: 'hello from a low port', other: 'failed: ECONNREFUSED', sandbox: 'written' });
  });

  it('refuses in one line where nothing confines it', async () => {
    const { sandbox, home, script } = setup();
    const none = () => probeConfinement('linux', { bwrap: path.join(tempDir(), 'bwrap') });
    const request = { file: process.execPath, args: [script], env: {}, sandboxRoot: sandbox, home, readOnlyPaths: [], allowHosts: [], allowNetwork: false };
    await expect(startConfinedAgent(request, none)).rejects.toMatchObject({ category: 'policy', message: 'the agent cannot be confined here (bubblewrap (bwrap) is not installed)' });
    await expect(startAgent(request, { allowUnconfinedShell: false }, none)).rejects.toMatchObject({ category: 'policy', message: 'the agent cannot be confined here (bubblewrap (bwrap) is not installed)' });
    await expect(startConfinedAgent(request, async () => ({ ok: true, confiner: sandboxExecConfiner }))).rejects.toThrow('the agent cannot be confined here (sandbox-exec cannot give an agent its own home and network allowlist; bubblewrap can)');
  });

  it('starts unconfined where nothing confines it only when the profile allows unconfined commands, and confined where something does', async () => {
    const { sandbox, home, script, outside } = setup();
    const none = () => probeConfinement('linux', { bwrap: path.join(tempDir(), 'bwrap') });
    const request = { file: process.execPath, args: [script, 'http://127.0.0.1:1/', 'http://127.0.0.1:1/', outside], env: {}, sandboxRoot: sandbox, home, readOnlyPaths: [], allowHosts: [], allowNetwork: false };
    const unconfined = await startAgent(request, { allowUnconfinedShell: true }, none);
    agents.push(unconfined);
    expect(unconfined.confinement).toBe('none');
    expect(await firstLine(unconfined)).toMatchObject({ sandbox: 'written' });
    const confined = await startAgent(request, { allowUnconfinedShell: true });
    agents.push(confined);
    expect(confined.confinement).toBe('bwrap-nobody');
    expect(await firstLine(confined)).toMatchObject({ sandbox: 'written', installation: 'EROFS' });
  });
});

describe('an unconfined agent', () => {
  it('runs with the host network and ends with its whole process group', async () => {
    const port = await serve('the model');
    const { sandbox, home, script, outside } = setup();
    const agent = await startUnconfinedAgent({ file: process.execPath, args: [script, `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}/`, outside], env: {}, sandboxRoot: sandbox, home, readOnlyPaths: [], allowHosts: [], allowNetwork: false });
    agents.push(agent);
    expect(agent.confinement).toBe('none');
    expect(await firstLine(agent)).toMatchObject({ allowed: 'hello from the model', other: 'hello from the model', home_env: home });
    await agent.dispose();
    expect(await heartbeatStopped(sandbox)).toBe(true);
  });
});

describe('the allowed addresses', () => {
  it('are the host:port of every base URL in the environment', () => {
    expect(
      hostsFromEnv({
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:4100',
        OPENAI_BASE_URL: 'https://llm.example.com/v1',
        GOOGLE_GEMINI_BASE_URL: 'http://[::1]:9000/',
        OTHER_BASE_URL: 'http://127.0.0.1:4100/again',
        BROKEN_BASE_URL: 'not a url',
        OPENAI_API_KEY: 'http://ignored:1',
      }),
    ).toEqual(['127.0.0.1:4100', 'llm.example.com:443', '[::1]:9000']);
  });

  it('listen on the loopback inside: literal addresses where they are, names on their own addresses in /etc/hosts', () => {
    const plan = planNetwork(['127.0.0.1:4100', 'localhost:4100', 'api.anthropic.com:443', '[::1]:9000', '10.0.0.5:8080']);
    expect(plan.routes.map((r) => `${r.listen.host}:${r.listen.port} -> ${r.target.host}:${r.target.port}`)).toEqual([
      '127.0.0.1:4100 -> 127.0.0.1:4100',
      '127.77.0.1:443 -> api.anthropic.com:443',
      '::1:9000 -> ::1:9000',
      '10.0.0.5:8080 -> 10.0.0.5:8080',
    ]);
    expect(plan.hosts).toContain('127.77.0.1 api.anthropic.com\n');
    expect(plan).toMatchObject({ needsPreparedNamespace: true, extraAddresses: ['10.0.0.5'] });
    expect(planNetwork(['127.0.0.1:4100']).needsPreparedNamespace).toBe(false);
  });

  it('refuse an entry that is not HOST:PORT, in one line', () => {
    expect(() => parseHostPort('example.com')).toThrow('agent network: "example.com" is not HOST:PORT');
    expect(() => parseHostPort('example.com:99999')).toThrow('is not HOST:PORT');
  });
});
