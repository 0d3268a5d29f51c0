import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark, BenchResult } from './bench-result';
import { benchmarks } from './registry';

/** `npm run bench [-- --only NAME] [-- --write-doc]`: one line per figure, exit 1 if a budget is missed. */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  // Case aside: `--only 'CLI start'` selects the benchmark named `cli start`.
  const selected: Benchmark[] = benchmarks.filter((b) => !only || b.name.toLowerCase().includes(only.toLowerCase()));
  const results: BenchResult[] = [];
  for (const bench of selected) {
    process.stderr.write(`running ${bench.name}…\n`);
    for (const result of await bench.run()) {
      results.push(result);
      process.stdout.write(`${result.pass ? 'PASS' : 'FAIL'}  ${result.name.padEnd(44)} ${result.figure.padEnd(40)} budget ${result.budget}\n`);
    }
  }
  if (args.includes('--write-doc')) writeFileSync(join(__dirname, '..', 'docs', 'benchmark-results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const failed = results.filter((r) => !r.pass).length;
  process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

void main();
