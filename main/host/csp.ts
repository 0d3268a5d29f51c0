export interface CspOptions {
  /** Extra sources the page may connect to, such as the console's own `ws://host:port`. */
  connectSrc?: readonly string[];
  /**
   * Vite's dev server injects its client and styles inline and talks over a WebSocket; only then
   * are inline scripts and styles allowed, from that one origin.
   */
  devServerOrigin?: string;
}

/**
 * The Content-Security-Policy of the console, in Electron and in the browser alike: only the app's
 * own scripts, styles and connections; no inline code, no plugins, no framing, no form posts.
 */
export function contentSecurityPolicy(options: CspOptions = {}): string {
  const dev = options.devServerOrigin;
  const devWs = dev ? dev.replace(/^http/, 'ws') : undefined;
  const directives: [string, ...string[]][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'", ...(dev ? [dev, "'unsafe-inline'"] : [])],
    ['style-src', "'self'", ...(dev ? [dev, "'unsafe-inline'"] : [])],
    ['img-src', "'self'", 'data:'],
    ['font-src', "'self'", 'data:'],
    ['connect-src', "'self'", ...(options.connectSrc ?? []), ...(dev && devWs ? [dev, devWs] : [])],
    ['worker-src', "'self'"],
    ['manifest-src', "'self'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
    ['object-src', "'none'"],
  ];
  return directives.map((d) => d.join(' ')).join('; ');
}
