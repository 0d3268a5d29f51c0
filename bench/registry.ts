import type { Benchmark } from './bench-result';

/** Every benchmark `npm run bench` runs, in order. */
export const benchmarks: Benchmark[] = [];
