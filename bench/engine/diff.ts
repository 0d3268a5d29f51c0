import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { toChangeEntry } from '../../main/engine/run/change-capture';
import { unifiedDiff } from '../../main/engine/changeset/diff';
import type { ChangeEntry } from '../../shared/changes';
import type { Benchmark, BenchResult } from '../bench-result';
import { paired, ratioFigure, scratchDir, seededRandom } from './util';

const run = promisify(execFile);

const FILES = 200;
const LINES = 2_000;
const CHANGED = 0.02;
const REPS = Number(process.env.BENCH_DIFF_REPS ?? 11);

function line(random: () => number): string {
  const words = ['const', 'value', 'return', 'if', '(', ')', '{', '}', 'items', 'map', '=>', 'index', 'await', 'result', ';', 'this', 'name'];
  const count = 3 + Math.floor(random() * 9);
  let out = '  '.repeat(Math.floor(random() * 4));
  for (let i = 0; i < count; i++) out += `${words[Math.floor(random() * words.length)]}${random() < 0.3 ? String(Math.floor(random() * 1000)) : ''} `;
  return out.trimEnd();
}

/**
 * 200 files of 2,000 lines; in each, 2% of the lines (40) changed: a third rewritten, a third
 * deleted, a third with a new line inserted after them, spread over the file.
 */
function makeTrees(): { paths: string[]; before: string[]; after: string[] } {
  const random = seededRandom(42);
  const paths: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  for (let f = 0; f < FILES; f++) {
    const lines = Array.from({ length: LINES }, () => line(random));
    const changed = new Set<number>();
    while (changed.size < LINES * CHANGED) changed.add(Math.floor(random() * LINES));
    const next: string[] = [];
    for (let i = 0; i < LINES; i++) {
      if (!changed.has(i)) {
        next.push(lines[i]);
        continue;
      }
      const kind = i % 3;
      if (kind === 0) next.push(`${lines[i]} // changed`);
      else if (kind === 1) next.push(lines[i], line(random));
      // kind 2: the line is deleted
    }
    paths.push(`src/module-${String(f).padStart(3, '0')}/file.ts`);
    before.push(`${lines.join('\n')}\n`);
    after.push(`${next.join('\n')}\n`);
  }
  return { paths, before, after };
}

export const diffBenchmark: Benchmark = {
  name: 'changeset diff',
  async run(): Promise<BenchResult[]> {
    const { paths, before, after } = makeTrees();
    const scratch = scratchDir('diff');
    try {
      for (const [side, texts] of [['a', before], ['b', after]] as const) {
        for (let f = 0; f < FILES; f++) {
          const file = path.join(scratch.dir, side, paths[f]);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, texts[f]);
        }
      }
      const entries: ChangeEntry[] = paths.map((p, f) =>
        toChangeEntry({ operation: 'modify', path: p, before: Buffer.from(before[f]), after: Buffer.from(after[f]) }, { decisionId: null, invocationId: null }),
      );
      let ours = '';
      let theirs = '';
      const subject = async () => {
        const started = performance.now();
        const parts: string[] = [];
        for (const entry of entries) parts.push(unifiedDiff(entry) ?? '');
        ours = parts.join('');
        return performance.now() - started;
      };
      const baseline = async () => {
        const started = performance.now();
        // Exit status 1 means "differences found".
        const result = await run('git', ['diff', '--no-index', '--no-color', '--no-ext-diff', 'a', 'b'], { cwd: scratch.dir, maxBuffer: 256 * 1024 * 1024 }).catch(
          (error: { code?: number; stdout?: string }) => {
            if (error.code !== 1) throw error;
            return { stdout: error.stdout ?? '' };
          },
        );
        theirs = result.stdout;
        return performance.now() - started;
      };
      await subject();
      await baseline();
      const runs = await paired(REPS, subject, baseline);
      const { ratio, figure, details } = ratioFigure(runs);

      // Both must describe the same change: equal counts of removed and added lines.
      const count = (patch: string, sign: string) => patch.split('\n').filter((l) => l.startsWith(sign) && !l.startsWith(`${sign.repeat(3)} `)).length;
      const ourCounts = [count(ours, '-'), count(ours, '+')];
      const gitCounts = [count(theirs, '-'), count(theirs, '+')];
      if (ourCounts[0] !== gitCounts[0] || ourCounts[1] !== gitCounts[1]) {
        throw new Error(`changeset diff: ours removes/adds ${ourCounts.join('/')} lines, git ${gitCounts.join('/')}`);
      }
      // And ours applies cleanly to the before tree.
      writeFileSync(path.join(scratch.dir, 'ours.patch'), ours);
      await run('git', ['apply', '--check', path.join(scratch.dir, 'ours.patch')], { cwd: path.join(scratch.dir, 'a') });
      return [
        {
          name: `changeset diff: ${FILES} files x ${LINES.toLocaleString('en-US')} lines, 2% changed`,
          figure,
          budget: 'ratio <= 1.0',
          pass: ratio <= 1.0,
          details: { ...details, files: FILES, linesPerFile: LINES, removedLines: ourCounts[0], addedLines: ourCounts[1] },
        },
      ];
    } finally {
      scratch.cleanup();
    }
  },
};
