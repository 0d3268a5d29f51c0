/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function formatAge(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** 850 ms, 2.5 s, 3 min 5 s: one wording with the CLI. */
export { formatDuration } from '../../../shared/vocabulary';

/** Local wall-clock time with seconds, e.g. 14:03:27. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Seconds left, rounded up, never negative: "in 3 s". */
export function formatCountdown(msLeft: number): string {
  const seconds = Math.max(0, Math.ceil(msLeft / 1000));
  return seconds === 0 ? 'now' : `in ${seconds} s`;
}

/** A short one-line rendering of tool arguments. */
export function formatArgs(args: Record<string, unknown>, max = 80): string {
  const text = Object.entries(args)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null)}`)
    .join(' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A failure's sentence, read by its shape: a failed call rejects with a plain object on both
 * transports (shared/contract.ts, BridgeFailure), and an Error's class does not cross contextBridge.
 */
export function errorText(error: unknown): string {
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : String(error);
}

/** "1 tool call", "2 tool calls": one wording with the CLI. */
export { plural } from '../../../shared/vocabulary';

/** "1 file remains", "2 files remain": what an apply left for later. */
export function remainLine(files: number): string {
  return `${files} ${files === 1 ? 'file remains' : 'files remain'}`;
}
