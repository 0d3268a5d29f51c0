import type { Session, WebContents } from 'electron';
import { isSameOrigin } from './app-origin';

type Preventable = { preventDefault(): void };

/** New windows are never opened, whatever the page asks. */
export function denyWindowOpen(): { action: 'deny' } {
  return { action: 'deny' };
}

/** Navigation and redirects stay inside the app's own origin. */
export function navigationGuard(appOrigin: string) {
  return (event: Preventable, url: string): boolean => {
    if (isSameOrigin(url, appOrigin)) return true;
    event.preventDefault();
    return false;
  };
}

/** The console needs no camera, notifications, clipboard reads or any other permission. */
export function denyPermissionRequest(_contents: unknown, _permission: string, callback: (granted: boolean) => void): void {
  callback(false);
}

export function denyPermissionCheck(): boolean {
  return false;
}

/** No window either, but the link is handed to `external` first: it opens the few the app allows (a trace viewer's) in the system's browser. */
export function windowOpenHandler(external?: (url: string) => void): (details: { url: string }) => { action: 'deny' } {
  if (!external) return denyWindowOpen;
  return ({ url }) => {
    external(url);
    return denyWindowOpen();
  };
}

/** Applies the window, navigation and webview policies to one WebContents (every one the app creates). */
export function hardenWebContents(contents: Pick<WebContents, 'setWindowOpenHandler' | 'on'>, appOrigin: string, external?: (url: string) => void): void {
  const guard = navigationGuard(appOrigin);
  contents.setWindowOpenHandler(windowOpenHandler(external));
  contents.on('will-navigate', (event) => guard(event, event.url));
  contents.on('will-frame-navigate', (event) => guard(event, event.url));
  contents.on('will-redirect', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Session-wide: every permission denied, and the CSP on every response the session sees. */
export function hardenSession(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'>, csp: string): void {
  session.setPermissionRequestHandler(denyPermissionRequest);
  session.setPermissionCheckHandler(denyPermissionCheck);
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    for (const key of Object.keys(headers)) if (key.toLowerCase() === 'content-security-policy') delete headers[key];
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [csp] } });
  });
}
