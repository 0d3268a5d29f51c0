import type { Benchmark } from './bench-result';
import { consoleBenchmark } from './console/console-bench';

/** Every benchmark `npm run bench` runs, in order. */
export const benchmarks: Benchmark[] = [consoleBenchmark];
