import type { StreamCallback } from '../../../shared/events';
import type { QueuedRun, RunOptions } from '../run-vocabulary';

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

