import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { isIP, type Server, connect as netConnect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Confinement } from '../../../shared/tool-calls';
import { EngineError } from '../errors';
import { resolveLocalCommand, shellWord } from '../mcp/launch';
import { type ConfinementProbe, detectConfinement, isUnder, NODE_MOUNT, nodeFolder, readOnlyMounts } from './confinement';
import { confinedPath } from './shell-run';

/** A long-lived agent (Claude Code, Qwen Code ...) to start over stdio, and what it may touch. */
export interface AgentProcessRequest {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Its working folder and the plan's only writable place besides `home`. */
  sandboxRoot: string;
  /** Its own folder for the plan (settings, sessions, caches); HOME points there. Made if missing. */
  home: string;
  /** Folders it may read besides the system's and its own installation (found from `file` and `args`). */
  readOnlyPaths: readonly string[];
  /** `host:port` pairs it may reach besides those of the `*_BASE_URL`s in `env`; IPv6 literals in brackets. */
  allowHosts: readonly string[];
  /** No network restriction at all. */
  allowNetwork: boolean;
}

export interface ConfinedAgentProcess {
  /** Its stdio pipes: the agent speaks ndjson on stdin/stdout. Read stderr too, or a chatty agent blocks on it. */
  child: ChildProcessWithoutNullStreams;
  /** How it runs, as a tool invocation records it: `bwrap-nobody`, or `none`. */
  confinement: Confinement;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the agent's whole process group (everything it forked) and the confinement's relays. */
  dispose(): Promise<void>;
}

/** How long dispose waits after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** Where the relays' unix sockets appear inside the confinement. */
const RELAY_MOUNT = '/run/agents-net';

/** The `host:port` of every `*_BASE_URL` in `env` (default ports for http and https). */
export function hostsFromEnv(env: Record<string, string>): string[] {
  const hosts: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (!key.endsWith('_BASE_URL')) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const entry = `${url.hostname}:${port}`;
    if (!hosts.includes(entry)) hosts.push(entry);
  }
  return hosts;
}

/** A reachable address: `host` as the agent names it, `port`. */
export interface HostPort {
  host: string;
  port: number;
}

/** Parses `host:port` (`[v6]:port` for IPv6); a bad entry is a one-line policy error. */
export function parseHostPort(entry: string): HostPort {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(entry.trim());
  const port = match ? Number(match[3]) : 0;
  if (!match || port < 1 || port > 65535) throw new EngineError(`agent network: "${entry}" is not HOST:PORT`, 'policy', { entry });
  return { host: (match[1] ?? match[2]).toLowerCase(), port };
}

/** One allowed address as the agent sees it: a listener inside its namespace, relayed to `target` on the host. */
interface Route {
  target: HostPort;
  listen: HostPort;
}

/** How the allowed addresses appear inside: names map to their own loopback address in a generated /etc/hosts. */
interface NetworkPlan {
  routes: Route[];
  hosts: string;
  /** Addresses to add to the loopback and ports below 1024: a namespace the engine prepares itself. */
  needsPreparedNamespace: boolean;
  extraAddresses: string[];
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.');
}

export function planNetwork(allowHosts: readonly string[]): NetworkPlan {
  const routes: Route[] = [];
  const names = new Map<string, string>();
  const extraAddresses: string[] = [];
  for (const entry of allowHosts) {
    const target = parseHostPort(entry);
    let listenHost: string;
    if (isIP(target.host)) {
      listenHost = target.host;
      if (!isLoopback(target.host) && !extraAddresses.includes(target.host)) extraAddresses.push(target.host);
    } else if (target.host === 'localhost') {
      listenHost = '127.0.0.1';
    } else {
      // Names get addresses of their own in 127.77/16, so two names on one port stay apart.
      if (!names.has(target.host)) names.set(target.host, `127.77.${Math.floor((names.size + 1) / 256)}.${(names.size + 1) % 256}`);
      listenHost = names.get(target.host) as string;
    }
    if (!routes.some((r) => r.listen.host === listenHost && r.listen.port === target.port)) routes.push({ target, listen: { host: listenHost, port: target.port } });
  }
  const lines = ['127.0.0.1 localhost', '::1 localhost ip6-localhost ip6-loopback', ...[...names].map(([name, ip]) => `${ip} ${name}`)];
  return { routes, hosts: `${lines.join('\n')}\n`, needsPreparedNamespace: extraAddresses.length > 0 || routes.some((r) => r.target.port < 1024), extraAddresses };
}

/**
 * Runs inside the namespace as `node -e`: listens on each allowed address, pipes each connection
 * to its relay's unix socket, then runs the agent with our stdio and ends with its status.
 */
const FORWARDER = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [spec, file, ...args] = process.argv.slice(1);
const routes = JSON.parse(spec);
let pending = routes.length;
const start = () => {
  const child = spawn(file, args, { stdio: 'inherit' });
  child.on('error', (e) => { process.stderr.write(file + ': ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => { if (signal) process.kill(process.pid, signal); process.exit(code ?? 1); });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
};
for (const r of routes) {
  const server = net.createServer((socket) => {
    const upstream = net.connect(r.socket);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  server.on('error', (e) => { process.stderr.write('cannot listen on ' + r.host + ':' + r.port + ': ' + e.message + '\\n'); process.exit(126); });
  server.listen(r.port, r.host, () => { if (--pending === 0) start(); });
}
if (routes.length === 0) start();
`;

/**
 * The command that runs the next words in a network namespace of their own, with the loopback up,
 * `addresses` on it and every port open to any user (bwrap then shares it). Root makes it in the
 * machine's user namespace; anyone else in one of their own where they are root.
 */
function preparedNamespace(addresses: readonly string[]): string[] {
  // `ip` lives in an sbin folder, which PATH may lack; the prefix applies to it alone.
  const ip = 'PATH=/usr/sbin:/sbin:/usr/bin:/bin ip';
  const setup = [`${ip} link set lo up`, ...addresses.map((address) => `${ip} addr add ${address}/${address.includes(':') ? 128 : 32} dev lo`), 'echo 0 > /proc/sys/net/ipv4/ip_unprivileged_port_start', 'exec "$0" "$@"'];
  return ['unshare', '--net', ...(process.geteuid?.() === 0 ? [] : ['--map-root-user']), '--', '/bin/sh', '-c', setup.join(' && ')];
}

let prepared: Promise<{ ok: true } | { ok: false; reason: string }> | undefined;

/** Whether such a namespace can be made here (unshare and ip installed, user namespaces allowed); found once per process. */
function probePreparedNamespace(): Promise<{ ok: true } | { ok: false; reason: string }> {
  prepared ??= new Promise((resolve) => {
    const [file, ...args] = [...preparedNamespace([]), '/bin/true'];
    execFile(file, args, { env: { PATH: '/usr/bin:/bin' } }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      const line = stderr.trim().split('\n').at(-1) || error.message;
      resolve({ ok: false, reason: `that failed here (${line})` });
    });
  });
  return prepared;
}

/** The path of the Node that runs us, as the confinement shows it (at /node unless under a system folder). */
function nodeInside(): string {
  const exec = realpathSync(process.execPath);
  const dir = nodeFolder();
  const mounted = readOnlyMounts(dir).find((m) => m.dest === NODE_MOUNT);
  return mounted ? path.join(NODE_MOUNT, path.relative(dir, exec)) : exec;
}

/** Unix-socket relays on the host side, one per route, that reach the real address. */
async function startRelays(routes: readonly Route[], dir: string): Promise<Server[]> {
  const servers: Server[] = [];
  for (const [index, route] of routes.entries()) {
    const server = createServer((socket) => {
      const upstream = netConnect(route.target.port, route.target.host);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path.join(dir, `${index}.sock`), () => resolve());
    });
  }
  return servers;
}

function refuse(reason: string): EngineError {
  return new EngineError(`the agent cannot be confined here (${reason})`, 'policy', { reason });
}

function signalGroup(child: ChildProcessWithoutNullStreams, name: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, name);
  } catch {
    // ESRCH: the group is already empty.
  }
}

/** Kills a detached child's process group: SIGTERM, then SIGKILL after a grace period. */
async function endGroup(child: ChildProcessWithoutNullStreams, exited: Promise<unknown>): Promise<void> {
  const signal = (name: NodeJS.Signals) => signalGroup(child, name);
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), KILL_GRACE_MS)));
  const outcome = await Promise.race([exited.then(() => 'done' as const), late]);
  clearTimeout(timer);
  // Whatever the group's leader left behind dies too, even when the leader ended on SIGTERM.
  signal('SIGKILL');
  if (outcome === 'late') await exited;
}

function spawnGroup(file: string, args: string[], env: Record<string, string>, cwd: string, confinement: Confinement, cleanup: () => Promise<void> | void): ConfinedAgentProcess {
  const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  // A write after the agent ended fails with EPIPE; `exited` says why, the engine must not crash on it.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  // What the agent forked may outlive it (`codex app-server` does, for seconds): the group goes with it.
  void exited.then(async () => {
    signalGroup(child, 'SIGKILL');
    await cleanup();
  });
  let disposed: Promise<void> | undefined;
  return {
    child,
    confinement,
    exited,
    dispose: () => {
      disposed ??= (async () => {
        await endGroup(child, exited);
        await cleanup();
      })();
      return disposed;
    },
  };
}

function agentEnv(request: AgentProcessRequest, path: string): Record<string, string> {
  return { PATH: path, LANG: 'C.UTF-8', ...request.env, HOME: request.home };
}

/**
 * Starts the agent confined by bubblewrap: its sandbox and home writable, its installation and
 * `readOnlyPaths` readable, nothing else of the machine's beyond the system folders; its own
 * network namespace where only `allowHosts` and its base URLs' addresses (relayed through unix
 * sockets to the host) answer,
 * unless `allowNetwork`. Throws a policy EngineError with a one-line reason when it cannot.
 */
export async function startConfinedAgent(request: AgentProcessRequest, confinement: () => Promise<ConfinementProbe> = detectConfinement): Promise<ConfinedAgentProcess> {
  const probe = await confinement();
  const reason = whyNotConfinable(probe);
  if (reason !== null || !probe.ok) throw refuse(reason ?? 'no confiner');
  const allowHosts = [...new Set([...hostsFromEnv(request.env), ...request.allowHosts])];
  const plan = request.allowNetwork ? undefined : planNetwork(allowHosts);
  if (plan?.needsPreparedNamespace) {
    const prepared = await probePreparedNamespace();
    if (!prepared.ok) throw refuse(`reaching ${allowHosts.join(', ')} needs a port below 1024 or an address outside 127.0.0.0/8 in a network namespace prepared for it, and ${prepared.reason}`);
  }
  mkdirSync(request.home, { recursive: true, mode: 0o700 });
  // bubblewrap binds by path: the real ones, so a link cannot point a bind elsewhere later.
  request = { ...request, sandboxRoot: realpathSync(request.sandboxRoot), home: realpathSync(request.home) };
  const resolved = resolveLocalCommand(request.file, request.args, request.sandboxRoot);
  const readOnlyPaths = [...new Set([...request.readOnlyPaths, ...resolved.readable])].filter((dir) => existsSync(dir) && ![request.sandboxRoot, request.home].some((own) => isUnder(own, dir) || isUnder(dir, own)));
  const relayDir = plan && plan.routes.length > 0 ? mkdtempSync(path.join(tmpdir(), 'agents-net-')) : undefined;
  let relays: Server[] = [];
  let cleaned: Promise<void> | undefined;
  const cleanup = () => {
    cleaned ??= (async () => {
      await Promise.all(relays.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      if (relayDir) rmSync(relayDir, { recursive: true, force: true });
    })();
    return cleaned;
  };
  try {
    const binds = [];
    let argv = [resolved.file, ...resolved.args];
    if (plan && relayDir) {
      relays = await startRelays(plan.routes, relayDir);
      writeFileSync(path.join(relayDir, 'hosts'), plan.hosts);
      binds.push({ source: relayDir, dest: RELAY_MOUNT }, { source: path.join(relayDir, 'hosts'), dest: '/etc/hosts' });
      const spec = plan.routes.map((route, index) => ({ host: route.listen.host, port: route.listen.port, socket: path.join(RELAY_MOUNT, `${index}.sock`) }));
      argv = [nodeInside(), '-e', FORWARDER, '--', JSON.stringify(spec), ...argv];
    }
    const launch = probe.confiner.launch({
      command: `exec ${argv.map(shellWord).join(' ')}`,
      sandboxRoot: request.sandboxRoot,
      // A namespace prepared here is shared; otherwise bwrap makes one with the loopback only.
      allowNetwork: request.allowNetwork || plan?.needsPreparedNamespace === true,
      readOnlyPaths,
      writablePaths: [request.home],
      binds,
    });
    const [file, ...args] = plan?.needsPreparedNamespace ? [...preparedNamespace(plan.extraAddresses), launch.file, ...launch.args] : [launch.file, ...launch.args];
    return spawnGroup(file, args, agentEnv(request, confinedPath()), request.sandboxRoot, probe.confiner.kind, cleanup);
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Why the probe's confiner cannot hold an agent, or null when it can (bubblewrap). */
function whyNotConfinable(probe: ConfinementProbe): string | null {
  if (!probe.ok) return probe.reason;
  if (probe.confiner.kind !== 'bwrap' && probe.confiner.kind !== 'bwrap-nobody') return `${probe.confiner.kind} cannot give an agent its own home and network allowlist; bubblewrap can`;
  return null;
}

/**
 * Starts the agent confined where the system can; where it cannot, unconfined if the profile
 * allows unconfined commands, else refused with the one-line reason (a policy EngineError).
 */
export async function startAgent(request: AgentProcessRequest, profile: { allowUnconfinedShell: boolean }, confinement: () => Promise<ConfinementProbe> = detectConfinement): Promise<ConfinedAgentProcess> {
  const probe = await confinement();
  if (whyNotConfinable(probe) !== null && profile.allowUnconfinedShell) return startUnconfinedAgent(request);
  return startConfinedAgent(request, () => Promise.resolve(probe));
}

/** Starts the agent with no confinement (the profile allows it), in a process group of its own that dispose ends. */
export async function startUnconfinedAgent(request: AgentProcessRequest): Promise<ConfinedAgentProcess> {
  mkdirSync(request.home, { recursive: true, mode: 0o700 });
  return spawnGroup(request.file, request.args, agentEnv(request, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'), request.sandboxRoot, 'none', () => undefined);
}
