/** The renderer is served as `app://console/...`: a standard, secure scheme of our own, never file://. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'console';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * `scheme://host[:port]` of a URL, or null. WHATWG URL gives "null" as the origin of schemes it does
 * not know (ours among them), so the origin is built from the parts.
 */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (!parsed.host) return null;
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return null;
  }
}

export function isSameOrigin(url: string, origin: string): boolean {
  return originOf(url) === origin;
}
