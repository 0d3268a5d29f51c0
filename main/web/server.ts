import { existsSync } from 'node:fs';
import { createServer, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_MESSAGE_BYTES } from '../../shared/ws-protocol';
import type { PlanService } from '../app/plan-service';
import { contentSecurityPolicy } from '../host/csp';
import { createConsoleHost } from '../host/console-host';
import type { EventFeed } from '../host/event-hub';
import { defaultHostLog, type HostLog } from '../host/router';
import { allowedHosts, checkUpgrade, hostAllowed, isLoopbackHost, isWildcardHost, newToken, ownOrigins, tokensMatch, urlHost, WS_PATH } from './auth';
import type { TeamStatus } from '../../shared/team';
import { createStaticHandler, isRendererBuilt } from './static-handler';
import { IdleCollector } from './idle-collect';
import { byteLength, WsConnection } from './ws-connection';

/**
 * The package's root: the nearest folder above this module with a package.json. This module runs
 * from main/web (through tsx) and from the built CLI's chunk in out/cli/chunks alike.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '../..');
  }
}

/** electron-vite's renderer output in the package. */
export const DEFAULT_RENDERER_DIR = path.join(packageRoot(__dirname), 'out', 'renderer');

/**
 * ws closes a connection whose message is larger than this. Between MAX_MESSAGE_BYTES and this,
 * the message is read and answered with an error, so a client learns why; beyond it, the
 * connection closes with 1009 and ws's reason.
 */
export const HARD_PAYLOAD_LIMIT = 4 * MAX_MESSAGE_BYTES;

export interface ServerOptions {
  service: PlanService;
  /** Default 127.0.0.1. Anything but a loopback address needs `allowRemote`. */
  host?: string;
  /**
   * Serve beyond this machine, answering the Host names listed (besides the loopback names and the
   * bound address). The token then travels in clear text over the network.
   */
  allowRemote?: { names: string[] };
  /** Default 0: a free port. */
  port?: number;
  rendererDir?: string;
  /** Shown by `app.info`. */
  dataDir?: string;
  /** Where the projects of plans created over the WebSocket must lie; default: the user's home. */
  projectRoots?: readonly string[];
  /** Folders of plan files a client may pick, looked in to resolve a plan's relative `project` beside its file. */
  planFolders?: readonly string[];
  log?: HostLog;
  /** Ping period; a client that misses one pong is cut off. */
  heartbeatMs?: number;
  /** Unsent bytes above which a socket's events wait in the database. */
  congestionBytes?: number;
  /** Who the console's answers are recorded as (main/app/operator.ts); default "console". */
  operator?: () => string;
  /** Team mode: other processes' events from the database's feed (not polled), and the team's status for `team.status`. */
  team?: { feed: () => Promise<EventFeed>; status: () => Promise<TeamStatus> };
}

export interface RunningServer {
  /** The console's address with its token: `http://HOST:PORT/?token=TOKEN`. */
  url: string;
  token: string;
  host: string;
  port: number;
  /** The WebSocket's address: `ws://HOST:PORT/ws?token=TOKEN`. */
  wsUrl: string;
  rendererBuilt: boolean;
  /** Stops accepting, closes every socket and subscription. Running plans are the caller's. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw new Error(`refusing to serve on ${host}, which is not a loopback address, without allowRemote`);
  }
  const log = options.log ?? defaultHostLog;
  const rendererDir = options.rendererDir ?? DEFAULT_RENDERER_DIR;
  const token = newToken();
  const consoleHost = createConsoleHost(
    { service: options.service, dataDir: options.dataDir },
    { projectRoots: options.projectRoots, planFolders: options.planFolders, log, operator: options.operator, team: options.team },
  );
  const { router, hub } = consoleHost;
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_PAYLOAD_LIMIT, perMessageDeflate: false });
  const connections = new Map<WebSocket, WsConnection>();
  const alive = new WeakSet<WebSocket>();
  let hosts = new Set<string>();
  let origins = new Set<string>();
  let csp = contentSecurityPolicy();
  let closing: Promise<void> | null = null;
  // Garbage of a burst of messages is collected once the server goes quiet (see idle-collect.ts).
  const idle = new IdleCollector();

  const serveStatic = createStaticHandler({ rendererDir, csp: () => csp });
  const server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host, hosts)) {
      const body = MISDIRECTED;
      res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
      return void res.end(body);
    }
    // A plain GET of the WebSocket's address says whether its token is right, for the console to
    // tell "wrong token" from "server gone": a browser cannot read why an upgrade was refused.
    const url = new URL(req.url ?? '/', 'http://request.invalid');
    if (url.pathname === WS_PATH) {
      const right = tokensMatch(token, url.searchParams.get('token'));
      const body = right ? 'the token is right; connect with a WebSocket\n' : 'missing or wrong token\n';
      res.writeHead(right ? 426 : 401, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      return void res.end(body);
    }
    serveStatic(req, res);
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (closing) return refuse(socket, 503, 'shutting down');
    if (!hostAllowed(req.headers.host, hosts)) return refuse(socket, 421, MISDIRECTED.trimEnd());
    const verdict = checkUpgrade(req, { token, origins });
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.reason);
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
      ws.on('message', (data) => idle.received(byteLength(data)));
      connections.set(ws, new WsConnection(ws, { router, hub, log, congestionBytes: options.congestionBytes }));
      ws.on('close', () => {
        connections.get(ws)?.dispose();
        connections.delete(ws);
      });
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await consoleHost.dispose();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  // A wildcard bind is reached through some interface; the loopback one is the address to print.
  const shownHost = isWildcardHost(host) ? (host === '::' ? '::1' : '127.0.0.1') : host;
  hosts = allowedHosts(host, port, options.allowRemote?.names ?? []);
  origins = ownOrigins(hosts);
  // CSP host sources cannot name IPv6 literals (Chromium rejects `ws://[::1]:PORT`); 'self' covers that page.
  csp = contentSecurityPolicy({ connectSrc: [...origins].filter((o) => !o.includes('[')).map((o) => o.replace(/^http:/, 'ws:')) });

  const heartbeat = setInterval(() => {
    for (const ws of connections.keys()) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  const base = `http://${urlHost(shownHost)}:${port}`;
  return {
    url: `${base}/?token=${token}`,
    wsUrl: `ws://${urlHost(shownHost)}:${port}${WS_PATH}?token=${token}`,
    token,
    host,
    port,
    rendererBuilt: isRendererBuilt(rendererDir),
    close: () =>
      (closing ??= (async () => {
        clearInterval(heartbeat);
        idle.dispose();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        for (const ws of connections.keys()) ws.close(1001, 'the console is shutting down');
        await consoleHost.dispose();
        // A client that does not answer the close handshake promptly is cut off.
        const grace = setTimeout(() => {
          for (const ws of connections.keys()) ws.terminate();
          server.closeAllConnections();
        }, 1_000);
        await stopped;
        clearTimeout(grace);
        for (const connection of connections.values()) connection.dispose();
        connections.clear();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })()),
  };
}

/** 421: this server does not answer for that Host (a DNS-rebound page, or a name the operator did not allow). */
const MISDIRECTED = 'misdirected request: this console answers only for its own host names\n';

function refuse(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
