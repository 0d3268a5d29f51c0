import { realpathSync } from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `rootDir` that a URL path names, or null when it would leave the folder
 * (`..`, encoded slashes, NUL bytes) or is not a plain path. `/` is `index.html`.
 */
export function resolveStaticPath(rootDir: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\') || !decoded.startsWith('/')) return null;
  // Any `..` is refused outright, rather than trusting normalisation to clamp it at the root.
  if (decoded.split('/').includes('..')) return null;
  const relative = path.posix.normalize(decoded).replace(/^\/+/, '');
  const root = path.resolve(rootDir);
  const file = path.resolve(root, relative === '' || relative.endsWith('/') ? path.posix.join(relative, 'index.html') : relative);
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

/** True when `file` is really inside `rootDir` once symlinks are followed; false if either is missing. */
export function isInsideRealRoot(rootDir: string, file: string): boolean {
  try {
    const root = realpathSync(rootDir);
    const real = realpathSync(file);
    return real.startsWith(root + path.sep);
  } catch {
    return false;
  }
}

/** A client-side route (no file extension) falls back to the app's index.html. */
export function isAppRoute(urlPath: string): boolean {
  return path.posix.extname(urlPath) === '';
}
