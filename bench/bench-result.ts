/** One line of `npm run bench`: a figure against its budget. */
export interface BenchResult {
  name: string;
  /** The measured figure, as printed, e.g. "ratio 1.42 (median of 5)". */
  figure: string;
  /** The budget, as printed, e.g. "<= 2.0". */
  budget: string;
  pass: boolean;
  /** Raw medians and counts for docs/BENCHMARKS.md. */
  details: Record<string, number | string>;
}

export interface Benchmark {
  name: string;
  run(): Promise<BenchResult[]>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
