// What a run of a plan is to the app: its options, how it travels to a worker, and what builds its
// executor. A leaf: the use cases, the executor factory and team dispatch all speak it, and it
// imports none of them.
import type { Plan } from '../../shared/domain';
import type { StreamCallback } from '../../shared/events';
import type { ResumeAt } from '../engine/ports/approvals';
import type { CorrectionContext } from '../engine/model/prompts';
import type { PlanExecutor } from '../engine/run/plan-executor';

export interface RunOptions {
  /**
   * Called once the run holds the plan (its checks passed, its lease taken): a host that answers
   * at once, not when the run ends, waits for this, so a refusal is still the request's error.
   */
  onStarted?: () => void;
  streamCallback?: StreamCallback;
  /** Pause before each decision; by default as the plan's profile says (`manual` does). */
  step?: boolean;
  breakpoints?: string[];
  /** In team mode: return once the run is queued instead of following it to its end. */
  detach?: boolean;
  /** For `correct`: the failed step's failure and the operator's note, in the model's context. */
  corrections?: ReadonlyMap<string, CorrectionContext>;
}

/** A run's options as a job carries them to a worker: what RunOptions says, in JSON. */
export interface QueuedRun {
  /** Why it was queued (`run`, `retry`, `approval answered`, ...), for logs and `agents workers`. */
  reason: string;
  resumeAt?: ResumeAt;
  breakpoints?: string[];
  corrections?: [decisionId: string, correction: CorrectionContext][];
}

/**
 * Where a process that does not run plans itself (the CLI and consoles in team mode) sends a run:
 * to the team's queue, and, when someone follows it, the plan's events until the run stops.
 */
export interface RunDispatch {
  /** Queues the run; resolves once it is queued (or already was). */
  enqueue(planId: string, run: QueuedRun): Promise<void>;
  /**
   * Calls `onEvent` with each event of the plan after `afterSeq` until no run of it is queued or
   * running, then resolves to the plan as the run left it.
   */
  follow(planId: string, afterSeq: number, onEvent: StreamCallback): Promise<Plan>;
  /** The last seq the plan has now: a follower starts after it. */
  lastSeq(planId: string): Promise<number>;
}

/** Builds the executor of one run, with the plan as it is once its sandbox exists; `close` ends what the run started (its MCP servers). */
export type ExecutorFactory = (plan: Plan, options: RunOptions) => Promise<{ executor: PlanExecutor; plan: Plan; close?: () => Promise<void> }>;
