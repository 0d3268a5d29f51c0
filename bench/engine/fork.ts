import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApp } from '../../main/app/open-app';
import { recordSandboxBase } from '../../main/engine/changeset/hand-edits';
import { createSandbox } from '../../main/engine/sandbox/sandbox';
import { treeHash } from '../../main/engine/test-support/tree-hash';
import type { Benchmark, BenchResult } from '../bench-result';
import { makeProject } from './sandbox';
import { paired, ratioFigure, scratchDir, syncDisk } from './util';

const REPS = Number(process.env.BENCH_FORK_REPS ?? 7);
const STEPS = 300;
const AT_STEP = 100;

/** A scripted plan of `STEPS` steps over the 10,000-file project, each writing a file of its own. */
function planFile(project: string): string {
  const steps = Array.from({ length: STEPS }, (_, i) => [
    `  - step: Step ${i + 1}`,
    '    tools:',
    '      - tool: file.write',
    `        args: { path: "steps/step-${i + 1}.txt", content: "step ${i + 1}\\n" }`,
  ]);
  return ['name: fork bench', `project: ${JSON.stringify(project)}`, 'automationProfile: full-auto', 'definitionOfDone:', ...steps.flat(), ''].join('\n');
}

/**
 * Fork: a 300-step plan over the 10,000-file project runs to its end (untimed); then a fork at
 * step 100 (its sandbox made from the checkpoint, the 99 steps before shared: decisions, changes,
 * calls and checkpoints copied) is timed against making the plan's sandbox from scratch as a first
 * run does (the project copied, its base recorded).
 */
export const forkBenchmark: Benchmark = {
  name: 'fork',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('fork');
    const app = await openApp({ dataDir: path.join(scratch.dir, 'data'), env: {}, sleep: () => Promise.resolve() });
    try {
      const project = path.join(scratch.dir, 'project');
      makeProject(project);
      const origin = await app.service.createFromContent({ content: planFile(project) }, scratch.dir);
      const ran = await app.service.run(origin.id);
      if (ran.phase !== 'apply') throw new Error(`fork: the ${STEPS}-step plan did not run to its end (${ran.processingState})`);

      const scratchSandboxes = path.join(scratch.dir, 'from-scratch');
      mkdirSync(scratchSandboxes);
      // Every sandbox made is kept until the repetitions are done: a repetition that creates 10,000
      // files just after one removed 10,000 measures the file system, not us (ext4 without a journal,
      // as on this project's machines, skips each inode freed in the last minute when it allocates one:
      // perf put 42% of a fill there, falling on either side by where its folders landed).
      const made: string[] = [];
      let checked = false;
      const subject = async () => {
        syncDisk();
        const started = performance.now();
        const { plan } = await app.service.fork(origin.id, { by: 'bench', atStep: AT_STEP });
        const ms = performance.now() - started;
        if (!checked) {
          // Once, untimed: the fork holds the project and the 99 shared steps' files, and nothing later.
          const expected = path.join(scratch.dir, 'expected');
          await createSandbox(project, scratch.dir, 'expected');
          mkdirSync(path.join(expected, 'steps'));
          for (let i = 1; i < AT_STEP; i++) writeFileSync(path.join(expected, 'steps', `step-${i}.txt`), `step ${i}\n`);
          if (treeHash(plan.sandboxRefs[0]) !== treeHash(expected)) throw new Error('fork: the sandbox is not the checkpoint of step 100');
          made.push(expected);
          checked = true;
        }
        made.push(plan.sandboxRefs[0]);
        return ms;
      };
      const baseline = async () => {
        const planId = `scratch-${made.length}`;
        syncDisk();
        const started = performance.now();
        const root = await createSandbox(project, scratchSandboxes, planId);
        await recordSandboxBase(app.service.stores.sandboxFiles, planId, root);
        const ms = performance.now() - started;
        made.push(root);
        return ms;
      };
      await subject();
      await baseline();
      const runs = await paired(REPS, subject, baseline);
      for (const root of made) rmSync(root, { recursive: true, force: true });
      const { ratio, figure, details } = ratioFigure(runs);
      return [
        {
          name: 'fork at step 100 of a 300-step plan',
          figure,
          budget: 'ratio <= 1.5',
          pass: ratio <= 1.5,
          details: { ...details, steps: STEPS, atStep: AT_STEP },
        },
      ];
    } finally {
      app.close();
      scratch.cleanup();
    }
  },
};
