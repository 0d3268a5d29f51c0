import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { contentTypeOf, isAppRoute, isInsideRealRoot, resolveStaticPath } from '../host/static-files';
import { WS_PATH } from './auth';

/** Headers on every response: the CSP, and no sniffing, framing, or leaking the token in a Referer. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>agents console</title>' +
  '<p>The console has not been built yet. Run <code>npm run build</code>, then reload this page.</p>';

export function isRendererBuilt(rendererDir: string): boolean {
  return existsSync(path.join(rendererDir, 'index.html'));
}

/** Serves the built renderer: GET and HEAD only, nothing outside `rendererDir`, SPA routes to index.html. */
export function createStaticHandler(options: { rendererDir: string; csp: () => string }) {
  const root = path.resolve(options.rendererDir);
  const send = (res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...securityHeaders(options.csp()), 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...extra });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', undefined, { Allow: 'GET, HEAD' });
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://request.invalid').pathname;
    } catch {
      return send(res, 400, 'bad request\n');
    }
    if (pathname === WS_PATH) return send(res, 426, 'this path takes a WebSocket upgrade\n', undefined, { Upgrade: 'websocket' });
    if (!isRendererBuilt(root)) {
      return isAppRoute(pathname) ? send(res, 503, NOT_BUILT_PAGE, 'text/html; charset=utf-8') : send(res, 404, 'not found\n');
    }
    let file = resolveStaticPath(root, pathname);
    if (file === null) return send(res, 404, 'not found\n');
    let stat = statOrNull(file);
    if ((!stat || !stat.isFile()) && isAppRoute(pathname)) {
      file = path.join(root, 'index.html');
      stat = statOrNull(file);
    }
    if (!stat || !stat.isFile() || !isInsideRealRoot(root, file)) return send(res, 404, 'not found\n');
    // Vite names built assets by content hash, so they never change; the page itself always may.
    const immutable = path.relative(root, file).startsWith(`assets${path.sep}`);
    res.writeHead(200, {
      ...securityHeaders(options.csp()),
      'Content-Type': contentTypeOf(file),
      'Content-Length': stat.size,
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };
}

function statOrNull(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}
