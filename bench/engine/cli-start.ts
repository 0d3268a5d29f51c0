import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Benchmark, BenchResult } from '../bench-result';
import { freshBuiltCli } from '../../scripts/built-cli.cjs';
import { paired, ratioFigure, scratchDir } from './util';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'agents.cjs');
const REPS = Number(process.env.BENCH_CLI_REPS ?? 21);
const BUDGET = 2.5;

/** Wall time of one process, from spawn to exit; a failure stops the benchmark. */
function spawnMs(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`cli start: ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return ms;
}

export const cliStartBenchmark: Benchmark = {
  name: 'cli start',
  async run(): Promise<BenchResult[]> {
    // Measures the command as a user runs it after `npm run build`; build the CLI if it is missing or stale.
    if (!freshBuiltCli()) execFileSync('npx', ['vite', 'build', '-c', 'vite.cli.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    const scratch = scratchDir('cli');
    try {
      const env = { ...process.env, AGENTS_HOME: scratch.dir };
      // A data directory with a few plans, and one untimed start that fills the compile cache.
      for (const example of ['add-license', 'flaky-network', 'broken-docs']) {
        execFileSync(process.execPath, [BIN, 'plan', 'create', path.join(ROOT, 'examples', `${example}.yaml`)], { env, stdio: 'ignore' });
      }
      const listed = (JSON.parse(execFileSync(process.execPath, [BIN, 'plan', 'list', '--json'], { env }).toString()) as { plans: unknown[] }).plans;
      if (!Array.isArray(listed) || listed.length !== 3) throw new Error('cli start: plan list did not list the three plans');
      const runs = await paired(
        REPS,
        async () => spawnMs([BIN, 'plan', 'list', '--json'], env),
        async () => spawnMs(['-e', '0'], env),
      );
      const { ratio, figure, details } = ratioFigure(runs);
      return [{ name: 'CLI start: agents plan list --json', figure, budget: `<= ${BUDGET}x node -e 0`, pass: ratio <= BUDGET, details }];
    } finally {
      scratch.cleanup();
    }
  },
};
