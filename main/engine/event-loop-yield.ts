/**
 * A yield to the event loop (timers, I/O, IPC) once the caller has held it for `budgetMs` since the
 * last one: the executor's calls do their file I/O synchronously, and without a yield a run would
 * hold the host's process, Electron's main process included, until it ends.
 */
export function eventLoopYielder(budgetMs = 4): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
