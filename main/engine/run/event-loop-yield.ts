/**
 * A yield to the event loop (timers, I/O, IPC) once the caller has held it for `budgetMs` since the
 * last one: the executor's calls do their file I/O synchronously, and without a yield a run would
 * hold the host's process, Electron's main process included, until it ends.
 */
export function eventLoopYielder(budgetMs = 4): () => Promise<void> | undefined {
  let since = performance.now();
  // Undefined while within budget: a caller in a tight loop can skip the await (a microtask each).
  return () => {
    if (performance.now() - since < budgetMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}
