import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { BUILTIN_PROFILES } from '../../shared/profiles';
import { ToolRegistry, ToolRunner } from '../../main/engine/run/tool-runner';
import { registerBuiltinTools } from '../../main/engine/tools';
import { CATASTROPHIC_PATTERN, searchProject } from '../../tests/support/search-project';
import { type Benchmark, type BenchResult, median } from '../bench-result';
import { FILES, makeProject } from './sandbox';
import { paired, ratioFigure, scratchDir } from './util';

const run = promisify(execFile);

const REPS = Number(process.env.BENCH_SEARCH_REPS ?? 9);
const BUDGET = 2.0;
/** Every 100th file gets a line the pattern matches; the rest have none, as in most searches. */
const EVERY = 100;
const PATTERN = 'TODO\\([a-z]+\\): file [0-9]+';
/** The executor's budget for the host's event-loop delay (docs/ARCHITECTURE.md): a search must not take the host's thread. */
const DELAY_BUDGET_MS = 30;

export const searchBenchmark: Benchmark = {
  name: 'file.search',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('search');
    try {
      const project = path.join(scratch.dir, 'project');
      makeProject(project);
      for (let i = 0; i < FILES; i += EVERY) {
        appendFileSync(path.join(project, `pkg-${(i % 200) % 20}`, `mod-${i % 200}`, `file-${i}.ts`), `// TODO(search): file ${i}\n`);
      }
      // The tool as plans call it: through the ToolRunner, with the invocation kept nowhere.
      const runner = new ToolRunner(registerBuiltinTools(new ToolRegistry()), { record: async () => undefined, listForPlan: async () => [], listForDecision: async () => [], talliesForPlan: async () => [] });
      const context = { planId: 'bench', decisionId: null, sandboxRoot: project, profile: BUILTIN_PROFILES.trusted };
      const ours = async () => {
        const invocation = await runner.execute({ tool: 'file.search', args: { pattern: PATTERN } }, context);
        return (invocation.result as { matches: unknown[] }).matches.length;
      };
      const grep = async () => (await run('grep', ['-rEn', PATTERN, project])).stdout.trim().split('\n').length;
      // Once, untimed: both find the same lines.
      const [found, grepped] = [await ours(), await grep()];
      if (found !== FILES / EVERY || grepped !== found) throw new Error(`file.search benchmark: found ${found} lines, grep ${grepped}, expected ${FILES / EVERY}`);
      const timed = (fn: () => Promise<unknown>) => async () => {
        const started = performance.now();
        await fn();
        return performance.now() - started;
      };
      const runs = await paired(REPS, timed(ours), timed(grep));
      const { ratio, figure, details } = ratioFigure(runs);
      // A catastrophic pattern over many files: the p99 of the event loop's delay while it searches.
      const hostile = path.join(scratch.dir, 'hostile');
      searchProject(hostile);
      const hostileContext = { ...context, sandboxRoot: hostile };
      await runner.execute({ tool: 'file.search', args: { pattern: CATASTROPHIC_PATTERN } }, hostileContext);
      const delays: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        await runner.execute({ tool: 'file.search', args: { pattern: CATASTROPHIC_PATTERN } }, hostileContext);
        loop.disable();
        delays.push(loop.percentile(99) / 1e6);
      }
      const delay = median(delays);
      return [
        { name: `file.search: ${FILES.toLocaleString('en-US')} files`, figure, budget: `<= ${BUDGET}x grep -rE`, pass: ratio <= BUDGET, details: { ...details, files: FILES, matches: found } },
        {
          name: 'file.search: event-loop delay p99 during a catastrophic pattern',
          figure: `${delay.toFixed(1)} ms`,
          budget: `< ${DELAY_BUDGET_MS} ms`,
          pass: delay < DELAY_BUDGET_MS,
          details: { medianP99Ms: Number(delay.toFixed(1)), worstP99Ms: Number(Math.max(...delays).toFixed(1)), pattern: CATASTROPHIC_PATTERN },
        },
      ];
    } finally {
      scratch.cleanup();
    }
  },
};
