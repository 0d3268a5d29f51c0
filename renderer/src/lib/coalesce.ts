/**
 * Wraps an async refresh so overlapping triggers run it at most once more after the current run,
 * and never more often than every `minIntervalMs`. Returns the trigger.
 */
export function coalesce(
  run: () => Promise<void>,
  options: { minIntervalMs?: number; setTimeout?: (fn: () => void, ms: number) => unknown; now?: () => number } = {},
): () => void {
  const minInterval = options.minIntervalMs ?? 0;
  const schedule = options.setTimeout ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const now = options.now ?? Date.now;
  let running = false;
  let again = false;
  let waiting = false;
  let lastStart = -Infinity;

  const start = () => {
    waiting = false;
    running = true;
    again = false;
    lastStart = now();
    run()
      .catch(() => {})
      .finally(() => {
        running = false;
        if (again) trigger();
      });
  };

  const trigger = () => {
    if (running) {
      again = true;
      return;
    }
    if (waiting) return;
    const wait = lastStart + minInterval - now();
    if (wait > 0) {
      waiting = true;
      schedule(start, wait);
    } else start();
  };
  return trigger;
}
