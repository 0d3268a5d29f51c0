import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Benchmark, BenchResult } from '../bench-result';
import { SandboxWatch } from '../../main/engine/acp/sandbox-watch';
import { paired, ratioFigure, scratchDir } from './util';

const FILES = 10_000;
const CALLS = 20;
const REPS = Number(process.env.BENCH_ACP_REPS ?? 5);
/** Finding a call's changes may cost this much of what git takes to find them. */
const BUDGET = 1.5;

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: root, encoding: 'utf8' });
}

/**
 * What capturing a coding agent's changes costs per tool call on a 10,000-file project: after each of
 * 20 calls of a turn the agent has written one file, and the sandbox is compared with its last known
 * state (main/engine/acp/sandbox-watch.ts), against `git status --porcelain` finding the same change
 * in a repository of the same tree (process start included). Twice: as a capture goes with the
 * kernel's change notices, and as the whole scan it falls back on (its first capture, every 30 s,
 * a watcher failed, too many notices or folders), whose cost the notices do not hide.
 */
export const acpCaptureBenchmark: Benchmark = {
  name: 'agent capture',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('acp');
    try {
      const root = path.join(scratch.dir, 'project');
      for (let i = 0; i < FILES; i += 1) {
        const dir = path.join(root, `pkg${i % 100}`);
        if (i < 100) mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`);
      }
      git(root, 'init', '-q');
      git(root, 'add', '-A');
      git(root, 'commit', '-qm', 'project');
      // A project's files are older than a moment: a file changed within 2 s of being hashed is read again as racy (snapshot.ts).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const results: BenchResult[] = [];
      // With change notices (each capture looks at what the kernel named), then as a whole scan: the
      // first capture, the safety net every 30 s, and every capture where the tree cannot be watched.
      for (const [label, options] of [['', {}], [', whole scan', { watch: false }]] as const) {
        const watch = new SandboxWatch(root, options);
        await watch.baseline();
        let write = 0;
        const touch = () => {
          write += 1;
          writeFileSync(path.join(root, `pkg${write % CALLS}`, `file${write % CALLS}.ts`), `export const changed = ${write};\n`);
        };
        let runs;
        try {
          runs = await paired(
            REPS * CALLS,
            async () => {
              touch();
              const started = performance.now();
              const changes = await watch.changes();
              if (changes.length !== 1) throw new Error(`agent capture: expected one change, found ${changes.length}`);
              return performance.now() - started;
            },
            async () => {
              touch();
              const started = performance.now();
              git(root, 'status', '--porcelain');
              const ms = performance.now() - started;
              // Untimed: the watch learns of the baseline's write, so each timed capture finds one change.
              await watch.baseline();
              return ms;
            },
          );
        } finally {
          await watch.dispose();
        }
        const { ratio, figure, details } = ratioFigure(runs);
        results.push({ name: `agent capture per tool call${label} (${FILES.toLocaleString('en')} files)`, figure, budget: `<= ${BUDGET}x git status`, pass: ratio <= BUDGET, details });
      }
      return results;
    } finally {
      scratch.cleanup();
    }
  },
};
