import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeOf, isAppRoute, isInsideRealRoot, resolveStaticPath } from '../host/static-files';
import { APP_HOST, APP_SCHEME } from './app-origin';

/** How `protocol.registerSchemesAsPrivileged` must list our scheme, before the app is ready. */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
} as const;

/**
 * The `app://` handler: files of the built renderer, with the CSP on each response; nothing outside
 * the renderer's folder, and only for our own host.
 */
export function createAppProtocolHandler(options: { rendererDir: string; csp: string }): (request: Request) => Promise<Response> {
  const root = path.resolve(options.rendererDir);
  const headers = (type: string) => ({ 'Content-Type': type, 'Content-Security-Policy': options.csp, 'X-Content-Type-Options': 'nosniff' });
  const notFound = () => new Response('not found', { status: 404, headers: headers('text/plain; charset=utf-8') });

  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return notFound();
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return notFound();
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('method not allowed', { status: 405, headers: headers('text/plain; charset=utf-8') });
    let file = resolveStaticPath(root, url.pathname);
    if (file === null) return notFound();
    let found = await stat(file).then((s) => s.isFile(), () => false);
    if (!found && isAppRoute(url.pathname)) {
      file = path.join(root, 'index.html');
      found = await stat(file).then((s) => s.isFile(), () => false);
    }
    if (!found || !isInsideRealRoot(root, file)) return notFound();
    const body = request.method === 'HEAD' ? null : await readFile(file);
    return new Response(body, { status: 200, headers: headers(contentTypeOf(file)) });
  };
}
