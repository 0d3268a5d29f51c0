import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const WS_PATH = '/ws';

/** A fresh secret per start; it travels only in the printed URL and the page's own WebSocket URL. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokensMatch(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
}

/** `host` as it appears in a URL: IPv6 in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Whether binding `host` keeps the console on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

const LOOPBACK_NAMES = ['127.0.0.1', '[::1]', 'localhost'];

/**
 * The Host header values this server answers: the loopback names on its port, the address it is
 * bound to (unless a wildcard), and the names the operator allowed for remote use. Checking Host
 * defeats DNS rebinding: a page on evil.example that resolves to 127.0.0.1 still sends
 * `Host: evil.example:PORT`.
 */
export function allowedHosts(bindHost: string, port: number, remoteNames: readonly string[] = []): Set<string> {
  const names = [...LOOPBACK_NAMES, ...(isWildcardHost(bindHost) ? [] : [urlHost(bindHost)]), ...remoteNames.map(urlHost)];
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name.toLowerCase()}:${port}`);
    if (port === 80) hosts.add(name.toLowerCase());
  }
  return hosts;
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  return header !== undefined && allowed.has(header.trim().toLowerCase());
}

/** The origins a page served by this server has: one per Host it answers. */
export function ownOrigins(hosts: ReadonlySet<string>): Set<string> {
  return new Set([...hosts].map((host) => `http://${host}`));
}

export type UpgradeVerdict = { ok: true } | { ok: false; status: 401 | 403 | 404; reason: string };

/**
 * Whether a WebSocket upgrade may proceed: the right path, the right token, and a browser page of
 * our own origin. A missing Origin is refused too: every browser sends one, so only a non-browser
 * client would omit it, and it can send ours. (The Host header is checked before this, as for
 * every request.)
 */
export function checkUpgrade(
  request: { url?: string; headers: IncomingHttpHeaders },
  expected: { token: string; origins: ReadonlySet<string> },
): UpgradeVerdict {
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://upgrade.invalid');
  } catch {
    return { ok: false, status: 404, reason: 'bad request path' };
  }
  if (url.pathname !== WS_PATH) return { ok: false, status: 404, reason: `no WebSocket at ${url.pathname}` };
  if (!tokensMatch(expected.token, url.searchParams.get('token'))) return { ok: false, status: 401, reason: 'missing or wrong token' };
  const origin = request.headers.origin;
  if (origin === undefined || !expected.origins.has(origin.toLowerCase())) {
    return { ok: false, status: 403, reason: `origin ${origin ?? '(none)'} is not this console's` };
  }
  return { ok: true };
}
