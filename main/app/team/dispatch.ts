import type { Plan } from '../../../shared/domain';
import type { StreamCallback } from '../../../shared/events';
import type { CorrectionContext } from '../../engine/model/prompts';
import type { ResumeAt } from '../use-cases/running';
import type { RunOptions } from '../use-cases/plan-context';

/** A run's options as a job carries them to a worker: what RunOptions says, in JSON. */
export interface QueuedRun {
  /** Why it was queued (`run`, `retry`, `approval answered`, ...), for logs and `agents workers`. */
  reason: string;
  resumeAt?: ResumeAt;
  breakpoints?: string[];
  corrections?: [decisionId: string, correction: CorrectionContext][];
}

/** The run options a worker gives the run of a job. */
export function runOptionsOf(job: QueuedRun, streamCallback?: StreamCallback): RunOptions {
  return {
    streamCallback,
    // Nobody at a worker presses Enter: a run there stops only for its approvals.
    step: false,
    breakpoints: job.breakpoints,
    corrections: job.corrections ? new Map(job.corrections) : undefined,
  };
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
