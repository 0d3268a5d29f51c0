/**
 * Builds a value on its first use only. Schemas most commands never parse are built this way,
 * `z.lazy(once(…))` where another schema derives from one (`.unwrap().extend(…)` then gets the same
 * schema, not a second copy).
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
