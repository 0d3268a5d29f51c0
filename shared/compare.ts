/**
 * Order of two ASCII strings (ISO times, ids) by code unit. `localeCompare` would give the same order
 * for them but loads ICU's collator on its first call, which costs a CLI start about 15 ms.
 */
export function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
