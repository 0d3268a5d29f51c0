import { ulid } from 'ulid';

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Random bytes fetched 4 KiB at a time. ulid() on its own looks up a generator and calls
 * crypto.getRandomValues once per character, 16 calls for each id (about 35 µs an id on a 2-core
 * machine, more than a whole SQLite insert); drawing from a pool costs well under a microsecond.
 * Still the platform's cryptographic generator, in Node and in the browser alike.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function pooledRandom(): number {
  if (poolAt >= pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  // A byte / 256 gives ulid's Math.floor(x * 32) an even spread over its 32 characters.
  return pool[poolAt++] / 256;
}

export function newId(): string {
  return ulid(undefined, pooledRandom);
}

export function isUlid(value: unknown): value is string {
  return typeof value === 'string' && ULID_PATTERN.test(value);
}
