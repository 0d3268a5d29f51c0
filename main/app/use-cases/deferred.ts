import { once } from '../../../shared/once';
import type { ExecutorFactory } from '../run-vocabulary';
import type { PlanVerifying } from './verifying';
import type { PlanContext } from './plan-context';
import type { PlanReading } from './reading';
import type { PlanRunning } from './running';
import type { RunRegistry } from './run-registry';
import type { DeferredUseCases } from './deferred-compose';

/** Every method returns a promise: a call can wait for its module. */
type AsyncMethods<T> = { [K in keyof T]: (...args: never[]) => Promise<unknown> };

/**
 * A use case whose module is loaded at the first call of one of its methods. Each method is named
 * once here (the compiler checks the list is the use case's, no more and no less), and all of them
 * return promises, so a caller sees no difference but the wait for the module.
 */
function deferred<T extends AsyncMethods<T>>(load: () => Promise<T>, methods: Record<keyof T, true>): T {
  const use: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of Object.keys(methods)) {
    use[name] = async (...args) => ((await load()) as unknown as typeof use)[name](...args);
  }
  return use as unknown as T;
}

/**
 * The use cases a command that only reads never calls (`plan list` reads plans, nothing else):
 * their modules and the engine they import are loaded by the first call to any of them, so a start
 * reads, compiles and runs only what reading needs. `running` is asked for when they load.
 */
export function deferredUseCases(ctx: PlanContext, runs: RunRegistry, reading: PlanReading, running: () => PlanRunning): DeferredUseCases {
  const load = once(async () => (await import('./deferred-compose')).composeDeferred(ctx, runs, reading, running()));
  const part = <T extends AsyncMethods<T>>(pick: (all: DeferredUseCases) => T, methods: Record<keyof T, true>): T => deferred(async () => pick(await load()), methods);
  return {
    verifying: part((all) => all.verifying, { verifyPass: true, checkStep: true, verify: true, verifyIfStale: true, noticeSandboxEdits: true, checks: true }),
    approvals: part((all) => all.approvals, { approve: true, reject: true, expireQuestion: true }),
    fixing: part((all) => all.fixing, { skip: true, editStep: true, setProfile: true, replan: true, correct: true, retry: true, reset: true }),
    applying: part((all) => all.applying, { apply: true, discard: true }),
    sandboxFiles: part((all) => all.sandboxFiles, { readFile: true, saveFile: true }),
    checkpoints: part((all) => all.checkpoints, { checkpoints: true, rewindPreview: true, rewind: true, finishInterruptedRewinds: true, restoreInterruptedStep: true }),
    forking: part((all) => all.forking, { fork: true, compare: true }),
    reviewing: part((all) => all.reviewing, { rejectHunks: true, restoreHunks: true }),
  };
}

/** Executors as executor-factory.ts makes them, its module (the model, MCP, the executor) loaded by the first run. */
export function deferredExecutorFactory(ctx: PlanContext, checkStep: PlanVerifying['checkStep']): ExecutorFactory {
  const load = once(async () => (await import('../executor-factory')).sandboxExecutorFactory(ctx, checkStep));
  return async (plan, options) => (await load())(plan, options);
}
