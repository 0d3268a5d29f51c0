import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '../bench-result';

/** A fresh directory under the system temp dir; removed by `cleanup`. */
export function scratchDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), `agents-bench-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Flushes dirty pages so one repetition's writeback does not land on the next one's clock. */
export function syncDisk(): void {
  try {
    execFileSync('sync');
  } catch {
    // Not everywhere; the interleaving of runs still spreads writeback evenly.
  }
}

export async function timeMs(fn: () => unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export interface PairedRuns {
  subject: number[];
  baseline: number[];
  /** subject / baseline of each repetition. */
  ratios: number[];
}

/**
 * Runs subject and baseline alternately (which goes first alternates too), `reps` times, so that a
 * noisy neighbour or a warm cache hits both alike. Each repetition's figure is the ratio of the pair.
 */
export async function paired(
  reps: number,
  subject: (rep: number) => Promise<number>,
  baseline: (rep: number) => Promise<number>,
): Promise<PairedRuns> {
  const runs: PairedRuns = { subject: [], baseline: [], ratios: [] };
  for (let rep = 0; rep < reps; rep++) {
    let s: number;
    let b: number;
    if (rep % 2 === 0) {
      s = await subject(rep);
      b = await baseline(rep);
    } else {
      b = await baseline(rep);
      s = await subject(rep);
    }
    runs.subject.push(s);
    runs.baseline.push(b);
    runs.ratios.push(s / b);
  }
  return runs;
}

export const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

/** "ratio 1.23 (1,234 ms vs 1,000 ms, median of 5)". The ratio is the median of the per-repetition ratios. */
export function ratioFigure(runs: PairedRuns): { ratio: number; figure: string; details: Record<string, number> } {
  const ratio = median(runs.ratios);
  const s = median(runs.subject);
  const b = median(runs.baseline);
  return {
    ratio,
    figure: `ratio ${ratio.toFixed(2)} (${fmtMs(s)} ms vs ${fmtMs(b)} ms, median of ${runs.ratios.length})`,
    details: {
      ratioMedian: Number(ratio.toFixed(3)),
      ratioMin: Number(Math.min(...runs.ratios).toFixed(3)),
      ratioMax: Number(Math.max(...runs.ratios).toFixed(3)),
      subjectMedianMs: Number(s.toFixed(1)),
      baselineMedianMs: Number(b.toFixed(1)),
      repetitions: runs.ratios.length,
    },
  };
}

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` bytes of printable ASCII text in lines of up to 64 characters, ending with a newline. */
export function textOfSize(count: number, random: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_(){};=+-';
  // Built in a byte array: a string grown a character at a time is a rope that holds ~30 bytes a character.
  const bytes = Buffer.alloc(count, 'x');
  let at = 0;
  while (at < count - 1) {
    const lineLength = Math.min(count - 1 - at, 16 + Math.floor(random() * 48));
    for (let i = 0; i < lineLength - 1; i++) bytes[at++] = alphabet.charCodeAt(Math.floor(random() * alphabet.length));
    bytes[at++] = 10;
  }
  bytes[count - 1] = 10;
  return bytes.toString('latin1');
}
