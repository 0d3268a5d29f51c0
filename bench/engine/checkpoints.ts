import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toChangeEntry } from '../../main/engine/run/change-capture';
import { foldDeltas } from '../../main/engine/checkpoints/manifest';
import { ObjectStore } from '../../main/engine/checkpoints/object-store';
import { CheckpointRecorder } from '../../main/engine/checkpoints/recorder';
import { applyRestoreAsync, materialise, planRestore } from '../../main/engine/checkpoints/restore';
import { writeFileAtomic } from '../../main/engine/sandbox/files';
import { treeHash } from '../../main/engine/test-support/tree-hash';
import { openStores } from '../../main/persistence';
import type { Plan, StrategyDecision } from '../../shared/domain';
import type { Benchmark, BenchResult } from '../bench-result';
import { median } from '../bench-result';
import { makeProject } from './sandbox';
import { type PairedRuns, paired, ratioFigure, scratchDir, seededRandom, syncDisk, textOfSize } from './util';

const REPS = Number(process.env.BENCH_CHECKPOINT_REPS ?? 9);
const CHANGED_PER_STEP = 10;

/** Every regular file below `root`, `/`-separated and relative. */
function filesOf(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
    .sort();
}

const decision = (n: number): StrategyDecision => ({
  id: `D${n}`,
  planId: 'P',
  parentId: 'ROOT',
  type: 'strategy_choice',
  order: n,
  description: `Step ${n}`,
  rationale: '',
  toolCalls: [],
  status: 'pending',
  createdAt: '',
  updatedAt: '',
});

/**
 * Checkpoint cost: over the 10,000-file project, each step rewrites 10 of its files with 1-8 KiB
 * of text (written as the file tools write, recorded in the changeset as the run records them); the
 * checkpoint of the next step is timed against the writing of those 10 files, and the store's
 * growth (new objects plus the checkpoint's row) is weighed against the bytes written.
 */
async function checkpointCost(dir: string): Promise<BenchResult[]> {
  const sandbox = path.join(dir, 'sandbox');
  makeProject(sandbox);
  const stores = openStores(path.join(dir, 'data'));
  try {
    const objects = new ObjectStore(path.join(dir, 'data', 'objects'));
    const recorder = new CheckpointRecorder(stores.checkpoints, objects, stores.changesets, stores.invocations);
    const changesetId = await stores.changesets.start('P');
    const plan = { id: 'P', changesetId } as Plan;
    const steps = Array.from({ length: REPS + 2 }, (_, i) => decision(i + 1));
    const start = (step: number) => ({ plan, sandboxRoot: sandbox, steps, decisions: steps, decision: steps[step - 1], step });
    // The first checkpoint reads the whole project once; it is not what a step costs.
    await recorder.record(start(1));
    const files = filesOf(sandbox);
    const random = seededRandom(23);
    const rowBytes = stores.db.prepare('SELECT length(summary) + length(delta) + length(state) AS n FROM checkpoints WHERE plan_id = ? AND step = ?');

    const runs: PairedRuns = { subject: [], baseline: [], ratios: [] };
    const growth: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const chosen = Array.from({ length: CHANGED_PER_STEP }, () => files[Math.floor(random() * files.length)]);
      // What a step that edits code writes: 1-8 KiB a file.
      const contents = chosen.map(() => Buffer.from(textOfSize(1024 + Math.floor(random() * 7 * 1024), random)));
      const befores = chosen.map((rel) => readFileSync(path.join(sandbox, rel)));
      syncDisk();
      // The step: its 10 writes, as file.write makes them.
      let started = performance.now();
      for (const [i, rel] of chosen.entries()) await writeFileAtomic(path.join(sandbox, rel), contents[i]);
      const written = performance.now() - started;
      for (const [i, rel] of chosen.entries()) {
        await stores.changesets.record(changesetId, toChangeEntry({ operation: 'modify', path: rel, before: befores[i], after: contents[i] }, { decisionId: `D${rep + 1}`, invocationId: null }));
      }
      const objectsBefore = await objects.bytes();
      syncDisk();
      started = performance.now();
      const checkpoint = await recorder.record(start(rep + 2));
      const taken = performance.now() - started;
      if (!checkpoint || checkpoint.filesChanged !== new Set(chosen).size) throw new Error('checkpoint cost: the checkpoint did not record the files the step changed');
      const row = (rowBytes.get('P', rep + 2) as { n: number }).n;
      growth.push(((await objects.bytes()) - objectsBefore + row) / contents.reduce((n, c) => n + c.length, 0));
      runs.subject.push(taken);
      runs.baseline.push(written);
      runs.ratios.push(taken / written);
    }
    // Once, untimed: the last checkpoint's files are the sandbox's, byte for byte.
    const restored = path.join(dir, 'restored');
    await materialise(foldDeltas((await stores.checkpoints.list('P')).map((c) => c.delta)), objects, restored);
    if (treeHash(restored) !== treeHash(sandbox)) throw new Error('checkpoint cost: the checkpoints do not hold the sandbox');

    const { ratio, figure, details } = ratioFigure(runs);
    const grew = median(growth);
    return [
      {
        name: 'checkpoint cost: 10 of 10,000 files a step',
        figure,
        budget: 'ratio <= 1.5',
        pass: ratio <= 1.5,
        details: { ...details, files: files.length, changedPerStep: CHANGED_PER_STEP },
      },
      {
        name: 'checkpoint store growth per step',
        figure: `ratio ${grew.toFixed(2)} of the bytes changed (median of ${growth.length})`,
        budget: 'ratio <= 1.2',
        pass: grew <= 1.2,
        details: { growthRatioMedian: Number(grew.toFixed(3)), growthRatioMax: Number(Math.max(...growth).toFixed(3)) },
      },
    ];
  } finally {
    stores.close();
  }
}

/** 1,000 changes over the project: 400 edits, 300 new files, 300 deletions. */
function changeSet(files: readonly string[]): { edits: [string, string][]; creates: [string, string][]; deletes: string[] } {
  const random = seededRandom(31);
  const picked = [...files].sort(() => random() - 0.5).slice(0, 700);
  return {
    edits: picked.slice(0, 400).map((rel) => [rel, textOfSize(100 + Math.floor(random() * 300), random)]),
    creates: Array.from({ length: 300 }, (_, i) => [`pkg-${i % 20}/new-${i}/created-${i}.ts`, textOfSize(100 + Math.floor(random() * 300), random)]),
    deletes: picked.slice(400, 700),
  };
}

function applyChanges(root: string, change: ReturnType<typeof changeSet>): void {
  for (const [rel, text] of [...change.edits, ...change.creates]) {
    const absolute = path.join(root, rel);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
  }
  for (const rel of change.deletes) unlinkSync(path.join(root, rel));
}

/**
 * Rewind: the same 1,000 changes undone by a rewind of the sandbox to its checkpoint (the whole
 * tree looked at, only what differs read and written), against `git checkout` of the commit before
 * them in a repository of the same tree.
 */
async function rewind(dir: string): Promise<BenchResult[]> {
  const project = path.join(dir, 'project');
  makeProject(project);
  const files = filesOf(project);
  const change = changeSet(files);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', '-c', 'core.autocrlf=false', ...args], { cwd: repo, stdio: 'pipe' });
  const repo = path.join(dir, 'repo');
  cpSync(project, repo, { recursive: true });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const base = git('rev-parse', 'HEAD').toString().trim();
  applyChanges(repo, change);
  git('add', '-A');
  git('commit', '-q', '-m', 'changed');
  const changed = git('rev-parse', 'HEAD').toString().trim();

  const sandbox = path.join(dir, 'sandbox');
  cpSync(project, sandbox, { recursive: true });
  const stores = openStores(path.join(dir, 'data'));
  try {
    const objects = new ObjectStore(path.join(dir, 'data', 'objects'));
    const recorder = new CheckpointRecorder(stores.checkpoints, objects, stores.changesets, stores.invocations);
    const plan = { id: 'P', changesetId: null } as Plan;
    const steps = [decision(1)];
    await recorder.record({ plan, sandboxRoot: sandbox, steps, decisions: steps, decision: steps[0], step: 1 });
    const target = foldDeltas((await stores.checkpoints.list('P')).map((c) => c.delta));
    const expected = treeHash(project);

    let checked = false;
    const subject = async () => {
      applyChanges(sandbox, change);
      syncDisk();
      const started = performance.now();
      const { ops } = await planRestore(sandbox, target);
      await applyRestoreAsync(sandbox, ops, objects);
      const ms = performance.now() - started;
      if (!checked) {
        // Once, untimed: the rewind gave back the project's tree exactly.
        if (treeHash(sandbox) !== expected) throw new Error('rewind: the sandbox is not the checkpoint');
        checked = true;
      }
      return ms;
    };
    const baseline = async () => {
      git('checkout', '-q', changed);
      syncDisk();
      const started = performance.now();
      git('checkout', '-q', base);
      return performance.now() - started;
    };
    await subject();
    await baseline();
    const runs = await paired(REPS, subject, baseline);
    const { ratio, figure, details } = ratioFigure(runs);
    return [
      {
        name: 'rewind: 1,000 changed files of 10,000',
        figure,
        budget: 'ratio <= 1.0',
        pass: ratio <= 1.0,
        details: { ...details, edits: change.edits.length, creates: change.creates.length, deletes: change.deletes.length },
      },
    ];
  } finally {
    stores.close();
  }
}

export const checkpointBenchmark: Benchmark = {
  name: 'checkpoints',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('checkpoints');
    try {
      return await checkpointCost(path.join(scratch.dir, 'cost'));
    } finally {
      scratch.cleanup();
    }
  },
};

/** Its own benchmark, so `--only rewind` runs it alone. */
export const rewindBenchmark: Benchmark = {
  name: 'rewind',
  async run(): Promise<BenchResult[]> {
    const scratch = scratchDir('rewind');
    try {
      return await rewind(path.join(scratch.dir, 'rewind'));
    } finally {
      scratch.cleanup();
    }
  },
};
