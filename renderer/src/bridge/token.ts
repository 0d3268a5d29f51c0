const TOKEN_KEY = 'agents.token';

type TokenStorage = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * The access token of `agents serve`: from `?token=` on first load, then from sessionStorage so
 * a reload (after the address bar was cleaned) still connects.
 */
export function resolveToken(search: string, storage: TokenStorage | null): string | null {
  const fromUrl = new URLSearchParams(search).get('token');
  if (fromUrl) {
    try {
      storage?.setItem(TOKEN_KEY, fromUrl);
    } catch {
      // Storage may be disabled; the token still works for this page.
    }
    return fromUrl;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

export function webSocketUrl(location: Pick<Location, 'protocol' | 'host'>, token: string | null): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}://${location.host}/ws${query}`;
}

/** The address without `token`, so it does not linger in history or get shared by accident. */
export function addressWithoutToken(href: string): string | null {
  const url = new URL(href);
  if (!url.searchParams.has('token')) return null;
  url.searchParams.delete('token');
  return url.pathname + (url.search === '?' ? '' : url.search) + url.hash;
}
