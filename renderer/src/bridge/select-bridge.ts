import type { Bridge } from '../../../shared/contract';
import { alwaysOpen, type ConnectionSource } from './connection';
import { addressWithoutToken, resolveToken, webSocketUrl } from './token';
import { createWsBridge } from './ws-bridge';

export interface SelectedBridge {
  bridge: Bridge;
  connection: ConnectionSource;
  transport: 'electron' | 'websocket';
  /** Whether an access token was found (browser only); without one the server refuses us. */
  hasToken: boolean;
  dispose(): void;
}

/** A plain GET of the WebSocket's address: 401 says the token is wrong, anything else that it is not. */
async function checkAccess(win: Window, wsUrl: string): Promise<'refused' | 'ok' | 'unknown'> {
  try {
    const response = await win.fetch(wsUrl.replace(/^ws/, 'http'), { cache: 'no-store' });
    return response.status === 401 ? 'refused' : 'ok';
  } catch {
    // The server is gone: keep reconnecting.
    return 'unknown';
  }
}

/** Electron's preload bridge when present, otherwise the WebSocket of `agents serve`. */
export function selectBridge(win: Window): SelectedBridge {
  if (win.agents) {
    return { bridge: win.agents, connection: alwaysOpen, transport: 'electron', hasToken: true, dispose: () => {} };
  }
  let storage: Storage | null = null;
  try {
    storage = win.sessionStorage;
  } catch {
    storage = null;
  }
  const token = resolveToken(win.location.search, storage);
  const cleaned = addressWithoutToken(win.location.href);
  if (cleaned !== null) win.history.replaceState(win.history.state, '', cleaned);
  const url = webSocketUrl(win.location, token);
  const ws = createWsBridge({ url, checkAccess: () => checkAccess(win, url) });
  return { bridge: ws.bridge, connection: ws.connection, transport: 'websocket', hasToken: token !== null, dispose: ws.dispose };
}
