import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentTypeOf, isAppRoute, isInsideRealRoot, resolveStaticPath } from './static-files';
import { contentSecurityPolicy } from './csp';

describe('resolveStaticPath', () => {
  const root = path.resolve('/srv/renderer');

  it('maps / to index.html and plain paths inside the folder', () => {
    expect(resolveStaticPath(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveStaticPath(root, '/assets/app-1.js')).toBe(path.join(root, 'assets/app-1.js'));
    expect(resolveStaticPath(root, '/a%20b.css')).toBe(path.join(root, 'a b.css'));
  });

  it.each(['/../etc/passwd', '/assets/../../x', '/%2e%2e/x', '/..%2fx', '/a%5c..%5c..%5cx', '/a%00b', '/%E0%A4%A', 'relative'])('refuses %s', (p) => {
    expect(resolveStaticPath(root, p)).toBeNull();
  });

  it('does not follow a symlink out of the folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'static-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'x');
    mkdirSync(path.join(dir, 'r'));
    writeFileSync(path.join(dir, 'r', 'ok.txt'), 'x');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'r', 'link.txt'));
    expect(isInsideRealRoot(path.join(dir, 'r'), path.join(dir, 'r', 'ok.txt'))).toBe(true);
    expect(isInsideRealRoot(path.join(dir, 'r'), path.join(dir, 'r', 'link.txt'))).toBe(false);
    expect(isInsideRealRoot(path.join(dir, 'r'), path.join(dir, 'r', 'missing.txt'))).toBe(false);
  });

  it('gives content types, and tells app routes from files', () => {
    expect(contentTypeOf('a.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('a.svg')).toBe('image/svg+xml');
    expect(contentTypeOf('a.woff2')).toBe('font/woff2');
    expect(contentTypeOf('a.unknown')).toBe('application/octet-stream');
    expect(isAppRoute('/plans/01ABC')).toBe(true);
    expect(isAppRoute('/assets/x.js')).toBe(false);
  });
});

describe('contentSecurityPolicy', () => {
  const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));

  it('allows only the app itself: no inline code, eval, plugins, framing or form posts', () => {
    const csp = directives(contentSecurityPolicy());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(contentSecurityPolicy()).not.toMatch(/unsafe-(inline|eval)|\*/);
  });

  it('adds the console WebSocket to connect-src, and relaxes only for a dev server origin', () => {
    expect(directives(contentSecurityPolicy({ connectSrc: ['ws://127.0.0.1:4477'] })).get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:4477']);
    const dev = directives(contentSecurityPolicy({ devServerOrigin: 'http://localhost:5173' }));
    expect(dev.get('script-src')).toEqual(["'self'", 'http://localhost:5173', "'unsafe-inline'"]);
    expect(dev.get('connect-src')).toContain('ws://localhost:5173');
  });
});
