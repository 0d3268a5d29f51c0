import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { APP_ORIGIN, isSameOrigin, originOf } from './app-origin';
import { APP_SCHEME_PRIVILEGES, createAppProtocolHandler } from './app-protocol';
import { menuTemplate } from './menu';
import { denyPermissionCheck, denyPermissionRequest, denyWindowOpen, hardenSession, hardenWebContents, navigationGuard } from './security';
import { mainWindowOptions } from './window-options';
import { contentSecurityPolicy } from '../host/csp';

vi.mock('electron', () => ({}));

describe('the main window', () => {
  it('has the security checklist preferences: isolated, sandboxed, no Node, web security on', () => {
    const { webPreferences } = mainWindowOptions('/app/out/preload/index.js');
    expect(webPreferences).toMatchObject({
      preload: '/app/out/preload/index.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});

describe('navigation, windows and permissions', () => {
  it('denies every new window', () => {
    expect(denyWindowOpen()).toEqual({ action: 'deny' });
  });

  it('lets navigation stay inside the app origin and prevents everything else', () => {
    const guard = navigationGuard(APP_ORIGIN);
    for (const url of ['app://console/index.html', 'app://console/plans/1#x']) {
      const event = { preventDefault: vi.fn() };
      expect(guard(event, url)).toBe(true);
      expect(event.preventDefault).not.toHaveBeenCalled();
    }
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'app://other/', 'javascript:alert(1)', 'about:blank', 'not a url']) {
      const event = { preventDefault: vi.fn() };
      expect(guard(event, url)).toBe(false);
      expect(event.preventDefault).toHaveBeenCalledOnce();
    }
  });

  it('denies permission requests and checks', () => {
    const callback = vi.fn();
    denyPermissionRequest(null, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(denyPermissionCheck()).toBe(false);
  });

  it('hardens each WebContents: window-open handler, navigation, redirects and webviews', () => {
    const listeners = new Map<string, (event: { url?: string; preventDefault(): void }) => void>();
    const contents = { setWindowOpenHandler: vi.fn(), on: vi.fn((name: string, l: never) => listeners.set(name, l)) };
    hardenWebContents(contents as never, APP_ORIGIN);
    expect(contents.setWindowOpenHandler).toHaveBeenCalledWith(denyWindowOpen);
    // With a handler for links: it sees the link, and the window is still denied.
    const opened: string[] = [];
    const withLinks = { setWindowOpenHandler: vi.fn(), on: vi.fn() };
    hardenWebContents(withLinks as never, APP_ORIGIN, (url) => opened.push(url));
    const handler = withLinks.setWindowOpenHandler.mock.calls[0]![0] as (details: { url: string }) => unknown;
    expect(handler({ url: 'http://jaeger:16686/trace/abc' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['http://jaeger:16686/trace/abc']);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect']) {
      const away = { url: 'https://evil.example/', preventDefault: vi.fn() };
      listeners.get(name)!(away);
      expect(away.preventDefault).toHaveBeenCalled();
      const home = { url: 'app://console/index.html', preventDefault: vi.fn() };
      listeners.get(name)!(home);
      expect(home.preventDefault).not.toHaveBeenCalled();
    }
    const webview = { preventDefault: vi.fn() };
    listeners.get('will-attach-webview')!(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('hardens the session: permission handlers deny, and every response carries our CSP in place of its own', () => {
    let onHeaders: ((details: { responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void) | undefined;
    const session = {
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
      webRequest: { onHeadersReceived: vi.fn((l: typeof onHeaders) => (onHeaders = l)) },
    };
    const csp = contentSecurityPolicy();
    hardenSession(session as never, csp);
    expect(session.setPermissionRequestHandler).toHaveBeenCalledWith(denyPermissionRequest);
    expect(session.setPermissionCheckHandler).toHaveBeenCalledWith(denyPermissionCheck);
    const callback = vi.fn();
    onHeaders!({ responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': ['1'] } }, callback);
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [csp] } });
  });

  it('compares origins of our own scheme, which URL calls "null"', () => {
    expect(originOf('app://console/index.html')).toBe('app://console');
    expect(originOf('http://localhost:5173/x')).toBe('http://localhost:5173');
    expect(originOf('about:blank')).toBeNull();
    expect(isSameOrigin('app://console.evil/x', APP_ORIGIN)).toBe(false);
  });
});

describe('the app:// protocol', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'renderer-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(path.dirname(dir), 'outside.txt'), 'secret');
  const csp = contentSecurityPolicy();
  const handler = createAppProtocolHandler({ rendererDir: dir, csp });

  it('is registered as a standard, secure scheme', () => {
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ scheme: 'app', privileges: { standard: true, secure: true } });
  });

  it('serves the built renderer with content types and the CSP', async () => {
    const request = (url: string, method = 'GET') => handler({ url, method } as Request);
    const index = await request('app://console/index.html');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toBe(csp);
    expect(await index.text()).toContain('<title>x</title>');
    const js = await request('app://console/assets/app.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await request('app://console/plans/123')).status).toBe(200);
    expect((await request('app://console/')).status).toBe(200);
    expect((await request('app://console/index.html', 'POST')).status).toBe(405);
    for (const bad of ['app://console/../outside.txt', 'app://console/%2e%2e/outside.txt', 'app://other/index.html', 'app://console/missing.js']) {
      expect((await request(bad)).status).toBe(404);
    }
  });
});

describe('the application menu', () => {
  const press = () => undefined;
  const roles = (template: ReturnType<typeof menuTemplate>) =>
    template.flatMap((item) => [item.role, ...(Array.isArray(item.submenu) ? item.submenu.map((s) => s.role) : [])]).filter(Boolean);

  it('has the usual Edit, View and Window menus, and reload only in development', () => {
    const prod = roles(menuTemplate({ isDev: false, isMac: false, press }));
    expect(prod).toEqual(expect.arrayContaining(['editMenu', 'windowMenu', 'quit', 'zoomIn', 'zoomOut', 'resetZoom', 'togglefullscreen']));
    expect(prod).not.toContain('reload');
    expect(prod).not.toContain('toggleDevTools');
    expect(roles(menuTemplate({ isDev: true, isMac: false, press }))).toEqual(expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']));
    expect(roles(menuTemplate({ isDev: false, isMac: true, press }))).toEqual(expect.arrayContaining(['appMenu', 'close']));
  });

  it("has the console's actions with their keys, shown but not taken from text fields, each pressing its key in the page", () => {
    const pressed: string[] = [];
    const template = menuTemplate({ isDev: false, isMac: false, press: (key) => pressed.push(key) });
    const plan = template.find((item) => item.label === 'Plan')!.submenu as MenuItemConstructorOptions[];
    const items = plan.filter((item) => item.label);
    expect(items.map((item) => [item.label, item.accelerator])).toEqual([
      ['Step', 'S'],
      ['Continue', 'C'],
      ['Pause', 'P'],
      ['Retry', 'R'],
      ['Approve the tool call the plan waits for', 'A'],
      ['Approve this call and every later call of its tool', 'Shift+A'],
      ['Reject', 'X'],
      ['Next failure', 'N'],
    ]);
    expect(items.every((item) => item.registerAccelerator === false)).toBe(true);
    for (const item of items) (item.click as () => void)();
    expect(pressed).toEqual(['s', 'c', 'p', 'r', 'a', 'A', 'x', 'n']);
    const help = template.find((item) => item.role === 'help')!.submenu as MenuItemConstructorOptions[];
    (help[0]!.click as () => void)();
    expect(pressed.at(-1)).toBe('?');
  });
});
