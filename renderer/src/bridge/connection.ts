/** The state of the link to the host, for the connection banner. Electron's IPC is always `open`. */
export type ConnectionStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'open' }
  | { state: 'closed'; attempt: number; retryAt: number }
  /** The server refuses this page's access token: reconnecting cannot help, a new address can. */
  | { state: 'refused' };

export interface ConnectionSource {
  get(): ConnectionStatus;
  subscribe(listener: (status: ConnectionStatus) => void): () => void;
}

export const alwaysOpen: ConnectionSource = {
  get: () => ({ state: 'open' }),
  subscribe: () => () => {},
};

/** Exponential backoff with jitter, capped, so a restarted server is found again quickly. */
export function defaultBackoff(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(10_000, 250 * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}
