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

/** The origins a page served by this server has. Loopback binds also answer to `localhost`. */
export function ownOrigins(host: string, port: number): Set<string> {
  const origins = new Set([`http://${urlHost(host)}:${port}`]);
  if (host === '127.0.0.1' || host === '::1' || host === 'localhost') {
    for (const alias of ['127.0.0.1', '[::1]', 'localhost']) origins.add(`http://${alias}:${port}`);
  }
  return origins;
}

export type UpgradeVerdict = { ok: true } | { ok: false; status: 401 | 403 | 404; reason: string };

/**
 * Whether a WebSocket upgrade may proceed: the right path, the right token, and a browser page of
 * our own origin. A missing Origin is refused too: every browser sends one, so only a non-browser
 * client would omit it, and it can send ours.
 */
export function checkUpgrade(
  request: { url?: string; headers: IncomingHttpHeaders },
  expected: { token: string; origins: ReadonlySet<string>; bindHost: string },
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
  const host = request.headers.host;
  const sameHost = isWildcardHost(expected.bindHost) && host !== undefined && origin === `http://${host}`;
  if (origin === undefined || !(expected.origins.has(origin) || sameHost)) {
    return { ok: false, status: 403, reason: `origin ${origin ?? '(none)'} is not this console's` };
  }
  return { ok: true };
}
