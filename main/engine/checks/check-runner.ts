import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult } from '../../../shared/checks';
import type { AutomationProfile } from '../../../shared/profiles';
import { newId } from '../../../shared/ids';
import { EngineError } from '../errors';
import type { EventPublisher } from '../ports/event-stream';
import type { TreeChangeTracker } from '../sandbox/tracker';
import { type ConfinementProbe, detectConfinement } from '../tools/confinement';
import { OutputCapture } from '../tools/output-capture';
import { confinedLaunch, runCommand } from '../tools/shell-run';
import type { CheckResultStore } from './check-store';
import type { DeclaredCheck } from './verdicts';
import { type TreeShape, treeShape, undoCheck } from './undo-check';
import { DeltaBatcher } from '../run/delta-batcher';

/** Bytes of output a result keeps inline; the whole output is in its file. */
const TAIL_BYTES = 4096;
/** Output is streamed in batches: at most this often, or this many bytes at once. */
const OUTPUT_BATCH_MS = 100;
const OUTPUT_BATCH_BYTES = 8192;

export interface CheckRunnerDeps {
  events: EventPublisher;
  results: CheckResultStore;
  /** Each check's whole output goes to `<outputDir>/<planId>/<resultId>.log`. */
  outputDir: string;
  /** The sandboxes' change capture, shared with shell.run: a check's writes are found and undone (undo-check.ts). */
  tracker: TreeChangeTracker;
  confinement?: () => Promise<ConfinementProbe>;
}

/**
 * Runs checks one after another in the sandbox's root, each confined exactly as shell.run is
 * (the same launch, the profile's network, its own time limit). What a check writes into the
 * sandbox is undone after it, so what is applied is what was checked. Each result is stored and
 * announced (check_started, check_output in batches, check_finished).
 */
export async function runChecks(
  deps: CheckRunnerDeps,
  target: { planId: string; profile: AutomationProfile; sandboxRoot: string },
  checks: readonly DeclaredCheck[],
): Promise<{ runId: string; results: CheckResult[] }> {
  const runId = newId();
  const results: CheckResult[] = [];
  for (const [i, check] of checks.entries()) results.push(await runOne(deps, target, check, runId, i + 1, checks.length));
  return { runId, results };
}

async function runOne(
  deps: CheckRunnerDeps,
  { planId, profile, sandboxRoot }: { planId: string; profile: AutomationProfile; sandboxRoot: string },
  check: DeclaredCheck,
  runId: string,
  index: number,
  total: number,
): Promise<CheckResult> {
  const resultId = newId();
  const { name, run, decisionId, source, timeoutSeconds } = check;
  await deps.events.publish(planId, 'check_started', { runId, resultId, name, run, source, decisionId, index, total });
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const folder = path.join(deps.outputDir, planId);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const outputPath = path.join(folder, `${resultId}.log`);
  const file = openSync(outputPath, 'w', 0o600);
  const tail = new OutputCapture(TAIL_BYTES * 2);
  const batcher = new DeltaBatcher((text) => deps.events.publish(planId, 'check_output', { runId, resultId, name, decisionId, text }), OUTPUT_BATCH_MS, OUTPUT_BATCH_BYTES);
  const flush = () => batcher.flush();
  const onOutput = (chunk: Buffer) => {
    writeSync(file, chunk);
    tail.push(chunk);
    batcher.push(chunk.toString('utf8'));
  };
  const base = { id: resultId, planId, runId, name, run, source, decisionId, timeoutSeconds, startedAt };
  let outcome: Pick<CheckResult, 'exitCode' | 'timedOut' | 'refused' | 'confinement'>;
  try {
    const confined = await confinedLaunch('check', run, sandboxRoot, profile, deps.confinement ?? detectConfinement);
    // Taken inside the tracked action, so no other tracked action on the sandbox runs in between.
    let shape: TreeShape | null = null;
    const tracked = await deps.tracker.track(sandboxRoot, async () => {
      shape = await treeShape(sandboxRoot);
      return runCommand(run, sandboxRoot, { timeoutMs: timeoutSeconds * 1000, maxOutputBytes: TAIL_BYTES, launch: confined.launch, onOutput });
    });
    // Without its shape the check never ran: there is nothing to undo.
    if (shape !== null) await undoCheck(sandboxRoot, shape, tracked.changes);
    if (!tracked.outcome.ok) throw tracked.outcome.error;
    const result = tracked.outcome.value;
    outcome = { exitCode: result.timedOut ? null : result.exitCode, timedOut: result.timedOut, refused: null, confinement: confined.kind };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    // The profile forbids the shell, or nothing can confine the command: the check did not run.
    outcome = { exitCode: null, timedOut: false, refused: error.message, confinement: null };
  } finally {
    closeSync(file);
  }
  await flush();
  const result: CheckResult = {
    ...base,
    ...outcome,
    passed: outcome.refused === null && !outcome.timedOut && outcome.exitCode === 0,
    durationMs: Math.round(performance.now() - started),
    outputTail: tail.tail(TAIL_BYTES),
    outputPath,
    finishedAt: new Date().toISOString(),
  };
  await deps.results.record(result);
  await deps.events.publish(planId, 'check_finished', result);
  return result;
}

const SAYS_WHAT_FAILED = /error|fail|assert|expected|not ok|✖|✗/i;

/**
 * The line of a check's output that says most about its failure: the last that reads like an error,
 * else the last with words in it (never a lone `}` or `]` closing a JSON dump or a stack).
 */
export function tellingLine(output: string): string | undefined {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /[A-Za-z]{2,}/.test(line));
  return lines.findLast((line) => SAYS_WHAT_FAILED.test(line)) ?? lines.at(-1);
}

/** One line naming the failed checks and how each failed, with the line of its output that says why. */
export function failedChecksMessage(failed: readonly CheckResult[]): string {
  const how = (r: CheckResult) => {
    if (r.refused !== null) return `refused: ${r.refused}`;
    if (r.timedOut) return `ran past its time limit of ${r.timeoutSeconds} s`;
    const last = tellingLine(r.outputTail);
    return `exited with status ${r.exitCode ?? '?'}${last ? `: ${last}` : ''}`;
  };
  return `${failed.length === 1 ? 'check' : 'checks'} failed: ${failed.map((r) => `"${r.name}" ${how(r)}`).join('; ')}`;
}
