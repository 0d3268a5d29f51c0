import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSandbox } from '../../main/engine/sandbox/sandbox';
import type { Benchmark, BenchResult } from '../bench-result';
import { paired, ratioFigure, scratchDir, seededRandom, syncDisk, textOfSize } from './util';

const run = promisify(execFile);

export const FILES = 10_000;
const DIRS = 200;
const REPS = Number(process.env.BENCH_SANDBOX_REPS ?? 7);

/** 10,000 files of 100-400 bytes in 200 directories two levels deep, like a small source tree. */
export function makeProject(root: string): void {
  const random = seededRandom(7);
  for (let i = 0; i < FILES; i++) {
    const d = i % DIRS;
    const dir = path.join(root, `pkg-${d % 20}`, `mod-${d}`);
    if (i < DIRS) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `file-${i}.ts`), textOfSize(100 + Math.floor(random() * 300), random));
  }
}

function countFiles(dir: string): number {
  let n = 0;
  for (const dirent of readdirSync(dir, { withFileTypes: true })) n += dirent.isDirectory() ? countFiles(path.join(dir, dirent.name)) : 1;
  return n;
}

export const sandboxBenchmark: Benchmark = {
  name: 'sandbox creation',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('sandbox');
    try {
      const project = path.join(scratch.dir, 'project');
      makeProject(project);
      const sandboxes = path.join(scratch.dir, 'sandboxes');
      const copies = path.join(scratch.dir, 'copies');
      mkdirSync(copies);
      let made = 0;
      const subject = async () => {
        const planId = `plan-${made++}`;
        syncDisk();
        const started = performance.now();
        const root = await createSandbox(project, sandboxes, planId);
        const ms = performance.now() - started;
        if (made === 1) {
          // Once, untimed: the sandbox is a faithful copy (every file, byte for byte).
          if (countFiles(root) !== FILES) throw new Error('sandbox creation: the sandbox does not hold every file');
          await run('diff', ['-r', '-q', project, root]);
        }
        rmSync(root, { recursive: true, force: true });
        return ms;
      };
      const baseline = async () => {
        const destination = path.join(copies, `copy-${made++}`);
        syncDisk();
        const started = performance.now();
        await run('cp', ['-r', project, destination]);
        const ms = performance.now() - started;
        rmSync(destination, { recursive: true, force: true });
        return ms;
      };
      await subject();
      await baseline();
      const runs = await paired(REPS, subject, baseline);
      const { ratio, figure, details } = ratioFigure(runs);
      return [
        {
          name: `sandbox creation: ${FILES.toLocaleString('en-US')} small files`,
          figure,
          budget: 'ratio <= 1.5',
          pass: ratio <= 1.5,
          details: { ...details, files: FILES, directories: DIRS },
        },
      ];
    } finally {
      scratch.cleanup();
    }
  },
};
