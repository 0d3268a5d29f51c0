import { emitKeypressEvents } from 'node:readline';

/**
 * One key from a terminal, without Enter: the key's name ('y', 'n', '?'), or null for Ctrl-C, Ctrl-D
 * or Escape. Null at once when stdin is not a terminal (the caller then reads lines).
 */
export function readKey(): Promise<string | null> {
  const input = process.stdin;
  if (!input.isTTY) return Promise.resolve(null);
  emitKeypressEvents(input);
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve) => {
    input.once('keypress', (sequence: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
      input.setRawMode(false);
      input.pause();
      if (key?.ctrl && (key.name === 'c' || key.name === 'd')) return resolve(null);
      if (key?.name === 'escape') return resolve(null);
      resolve((sequence ?? key?.name ?? '').toLowerCase());
    });
  });
}
