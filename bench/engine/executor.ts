import { monitorEventLoopDelay } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { StrategyDecision } from '../../shared/domain';
import { resolveProfile } from '../../shared/profiles';
import { newId } from '../../shared/ids';
import { ErrorRecoveryService } from '../../main/engine/run/error-recovery-service';
import { EventPublisher } from '../../main/engine/ports/event-stream';
import { PlanExecutionContext } from '../../main/engine/run/execution-context';
import { PlanLifecycleService } from '../../main/engine/run/lifecycle';
import { PlanExecutor } from '../../main/engine/run/plan-executor';
import { ToolRegistry, ToolRunner } from '../../main/engine/run/tool-runner';
import { registerBuiltinTools } from '../../main/engine/tools';
import { openDatabase } from '../../main/persistence/database';
import { openStores } from '../../main/persistence/stores';
import { type Benchmark, type BenchResult, median } from '../bench-result';
import { paired, ratioFigure, scratchDir, seededRandom, syncDisk, textOfSize } from './util';

const CALLS = Number(process.env.BENCH_EXECUTOR_CALLS ?? 10_000);
const CALLS_PER_DECISION = 100;
const FILE_BYTES = 1024;
const DIRS = 100;
const REPS = Number(process.env.BENCH_EXECUTOR_REPS ?? 5);
/** Peak RSS allowed for one engine run of the benchmark in its own process; see docs/BENCHMARKS.md. */
const RSS_BOUND_MIB = 256;
const RATIO_BUDGET = 1.3;
/** The host process must stay responsive while a run goes on (an Electron main process must never freeze its window). */
const LOOP_DELAY_BUDGET_MS = 30;

const relPath = (i: number) => `src/d${String(i % DIRS).padStart(3, '0')}/file-${String(i).padStart(5, '0')}.txt`;

export function contents(calls = CALLS): string[] {
  const random = seededRandom(8);
  return Array.from({ length: calls }, () => textOfSize(FILE_BYTES, random));
}

/** The rows one run stored, read back so the baseline can insert exactly the same ones. */
interface StoredRows {
  changesets: Record<string, SQLInputValue>[];
  blobs: Record<string, SQLInputValue>[];
  entries: Record<string, SQLInputValue>[];
  invocations: Record<string, SQLInputValue>[];
  events: Record<string, SQLInputValue>[];
}

/**
 * One run as PlanService wires it: SQLite stores on a file, the plan's lifecycle and event
 * publisher (with one subscriber, as the host's event hub), PlanExecutor -> RuntimeExecuteActor ->
 * ToolRunner -> file.write in a sandbox. Only runExecute is timed.
 */
export async function engineRun(files: readonly string[], keepDatabaseIn?: string): Promise<{ ms: number; events: number; loopDelayP99Ms: number; loopDelayMaxMs: number }> {
  const scratch = scratchDir('executor');
  try {
    const sandboxRoot = path.join(scratch.dir, 'sandbox');
    mkdirSync(sandboxRoot);
    const stores = openStores(path.join(scratch.dir, 'data'));
    let delivered = 0;
    const events = new EventPublisher(stores.events);
    events.subscribe(() => {
      delivered += 1;
    });
    const lifecycle = new PlanLifecycleService(stores.plans, events);
    const plan = await lifecycle.createPlan({ name: 'bench', definitionOfDone: 'write files', automationProfile: resolveProfile('trusted') });
    await lifecycle.beginPhase(plan.id, 'strategize');
    const now = new Date().toISOString();
    const root: StrategyDecision = {
      id: newId(), planId: plan.id, parentId: null, type: 'prompt_definition', order: 0,
      description: 'bench', rationale: '', toolCalls: [], status: 'done', createdAt: now, updatedAt: now,
    };
    const decisions: StrategyDecision[] = [root];
    for (let d = 0; d * CALLS_PER_DECISION < files.length; d++) {
      const toolCalls = [];
      for (let i = d * CALLS_PER_DECISION; i < Math.min(files.length, (d + 1) * CALLS_PER_DECISION); i++) {
        toolCalls.push({ tool: 'file.write', args: { path: relPath(i), content: files[i] } });
      }
      decisions.push({
        id: newId(), planId: plan.id, parentId: root.id, type: 'strategy_choice', order: d,
        description: `step ${d}`, rationale: '', toolCalls, status: 'pending', createdAt: now, updatedAt: now,
      });
    }
    await lifecycle.saveDecisions(decisions);
    await lifecycle.completePhase(plan.id, { decisionRootId: root.id });

    const executor = new PlanExecutor({
      lifecycleService: lifecycle,
      toolRunner: new ToolRunner(registerBuiltinTools(new ToolRegistry()), stores.invocations),
      executionContext: new PlanExecutionContext({
        planId: plan.id,
        decisionRootId: root.id,
        sandboxRoot,
        automationProfile: 'trusted',
        changesetStore: stores.changesets,
      }),
      errorRecoveryService: new ErrorRecoveryService(stores.errors, lifecycle),
    });
    syncDisk();
    // How long the host's event loop waited while the run went on: what an IPC call or a window
    // repaint in the same process would wait.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const started = performance.now();
    const result = await executor.runExecute(plan.id);
    const ms = performance.now() - started;
    loop.disable();

    const count = await stores.changesets.countEntries(result.changesetId);
    if (count !== files.length) throw new Error(`executor benchmark: ${count} change entries stored, expected ${files.length}`);
    if (keepDatabaseIn) stores.db.exec(`VACUUM INTO '${path.join(keepDatabaseIn, 'rows.db').replace(/'/g, "''")}'`);
    stores.close();
    return { ms, events: delivered, loopDelayP99Ms: loop.percentile(99) / 1e6, loopDelayMaxMs: loop.max / 1e6 };
  } finally {
    scratch.cleanup();
  }
}

/** The rows a run stored, read back from its database (untimed) so the baseline inserts exactly the same ones. */
function loadRows(file: string): StoredRows {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all() as Record<string, SQLInputValue>[];
    return {
      changesets: all('SELECT * FROM changesets'),
      blobs: all('SELECT * FROM blobs'),
      entries: all('SELECT * FROM change_entries ORDER BY changeset_id, seq'),
      invocations: all('SELECT * FROM tool_invocations ORDER BY pos'),
      events: all('SELECT * FROM events ORDER BY plan_id, seq'),
    };
  } finally {
    db.close();
  }
}

function countRows(file: string): number {
  const rows = loadRows(file);
  return rows.blobs.length + rows.entries.length + rows.invocations.length + rows.events.length;
}

function insertAll(db: ReturnType<typeof openDatabase>, table: string, rows: Record<string, SQLInputValue>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  for (const row of rows) insert.run(row);
}

/**
 * The same files written with a plain loop of fs.writeFile and hashed with sha256, then the same
 * rows the engine stored inserted into a database of the same schema in one transaction.
 */
async function baselineRun(files: readonly string[], rowsFile: string): Promise<number> {
  const scratch = scratchDir('executor-base');
  try {
    // Loaded for this run only: kept across the engine's runs, the rows would slow their garbage collection.
    const rows = loadRows(rowsFile);
    const target = path.join(scratch.dir, 'files');
    mkdirSync(path.join(scratch.dir, 'data'));
    const db = openDatabase(path.join(scratch.dir, 'data', 'agents.db'));
    syncDisk();
    const started = performance.now();
    const made = new Set<string>();
    const hashes: string[] = [];
    for (let i = 0; i < files.length; i++) {
      const file = path.join(target, relPath(i));
      const dir = path.dirname(file);
      if (!made.has(dir)) {
        await mkdir(dir, { recursive: true });
        made.add(dir);
      }
      await writeFile(file, files[i]);
      hashes.push(createHash('sha256').update(files[i]).digest('hex'));
    }
    // Raw node:sqlite: one transaction by hand, no helper of ours in the baseline.
    db.exec('BEGIN IMMEDIATE');
    insertAll(db, 'changesets', rows.changesets);
    insertAll(db, 'blobs', rows.blobs);
    insertAll(db, 'change_entries', rows.entries);
    insertAll(db, 'tool_invocations', rows.invocations);
    insertAll(db, 'events', rows.events);
    db.exec('COMMIT');
    const ms = performance.now() - started;
    db.close();
    if (hashes.length !== files.length) throw new Error('baseline hashed the wrong number of files');
    return ms;
  } finally {
    scratch.cleanup();
  }
}

/** One engine run of `calls` calls in a fresh process (bench/engine/executor-child.ts): its peak RSS. */
function childRun(calls: number): { calls: number; peakMiB: number; events: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'executor-child.ts'), String(calls)], {
    cwd: path.join(__dirname, '..', '..'),
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  const result = JSON.parse(out.trim().split('\n').at(-1) as string) as { maxRssKiB: number; events: number };
  return { calls, peakMiB: result.maxRssKiB / 1024, events: result.events };
}

export const executorBenchmark: Benchmark = {
  name: 'executor',
  async run(): Promise<BenchResult[]> {
    const files = contents();
    const rssBefore = process.resourceUsage().maxRSS;
    let rowCount = 0;
    let eventsPerRun = 0;
    let runs: Awaited<ReturnType<typeof paired>>;
    const loopP99: number[] = [];
    const loopMax: number[] = [];
    // A first, untimed run warms the JIT and leaves the rows the baseline inserts.
    const kept = scratchDir('executor-rows');
    try {
      const warm = await engineRun(files, kept.dir);
      const rowsFile = path.join(kept.dir, 'rows.db');
      rowCount = countRows(rowsFile);
      let events = warm.events;
      runs = await paired(
        REPS,
        async () => {
          const run = await engineRun(files);
          events = run.events;
          loopP99.push(run.loopDelayP99Ms);
          loopMax.push(run.loopDelayMaxMs);
          return run.ms;
        },
        () => baselineRun(files, rowsFile),
      );
      eventsPerRun = events;
    } finally {
      kept.cleanup();
    }
    const { ratio, figure, details } = ratioFigure(runs);
    // The engine's own footprint, without the benchmark's baselines: one run in a fresh process each.
    const small = childRun(Math.round(CALLS / 5));
    const full = childRun(CALLS);
    return [
      {
        name: `executor: ${CALLS.toLocaleString('en-US')} file.write of 1 KiB`,
        figure,
        budget: `ratio <= ${RATIO_BUDGET}`,
        pass: ratio <= RATIO_BUDGET,
        details: {
          ...details,
          calls: CALLS,
          eventsPerRun,
          rowsInserted: rowCount,
        },
      },
      {
        name: 'executor: event-loop delay during the run',
        figure: `p99 ${median(loopP99).toFixed(1)} ms (median of ${loopP99.length} runs; runs ${loopP99.map((v) => v.toFixed(1)).join(', ')}; slowest ${Math.max(...loopMax).toFixed(0)} ms)`,
        budget: `p99 < ${LOOP_DELAY_BUDGET_MS} ms`,
        pass: median(loopP99) < LOOP_DELAY_BUDGET_MS,
        details: { loopDelayP99Ms: Number(median(loopP99).toFixed(2)), loopDelayP99Runs: loopP99.map((v) => v.toFixed(1)).join(' '), loopDelayMaxMs: Number(Math.max(...loopMax).toFixed(1)) },
      },
      {
        name: 'executor: peak RSS of the host process',
        figure: `${full.peakMiB.toFixed(0)} MiB for ${CALLS.toLocaleString('en-US')} calls (${small.peakMiB.toFixed(0)} MiB for ${small.calls.toLocaleString('en-US')})`,
        budget: `< ${RSS_BOUND_MIB} MiB`,
        pass: full.peakMiB < RSS_BOUND_MIB,
        details: {
          peakRssMiB: Number(full.peakMiB.toFixed(1)),
          peakRssMiBAtFifth: Number(small.peakMiB.toFixed(1)),
          eventsAtFifth: small.events,
          events: full.events,
          benchProcessPeakRssMiB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)),
          benchProcessRssBeforeMiB: Number((rssBefore / 1024).toFixed(1)),
        },
      },
    ];
  },
};
