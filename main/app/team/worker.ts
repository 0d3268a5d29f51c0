import type { Plan } from '../../../shared/domain';
import { isRunnable } from '../../../shared/action-rules';
import { statusLabel } from '../../../shared/vocabulary';
import type { App } from '../open-app';
import { markInterrupted } from '../leases';
import { isStaleEpoch } from '../../engine/ports/leases';
import { runOptionsOf } from './dispatch';

export interface WorkerOptions {
  concurrency: number;
  /** The worker's name in `agents workers` (default `agents`). */
  name?: string;
  /** One line per run started and ended, and per failure, for the worker's log. */
  log: (line: string) => void;
  /**
   * The queue took a run's job from this worker while it ran (it stopped beating: asleep, cut off)
   * and another worker takes the plan over. The run cannot be stopped between two writes, so the
   * host should end the process at once, as if it had died, so that only one worker runs the plan.
   */
  onLost?: (planId: string) => void;
}

export interface RunningWorker {
  /** Stops taking runs, lets the running ones finish for up to `timeoutMs`, and disconnects. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Takes runs off the team's queue and runs them in this process, `concurrency` at a time. A run
 * whose plan is still marked running when its job arrives was taken over from a worker that
 * stopped beating (killed, cut off): it is marked interrupted and retried from its last committed
 * step, its sandbox made again here where it is missing.
 */
export async function startWorker(app: App, options: WorkerOptions): Promise<RunningWorker> {
  const team = app.team;
  if (!team?.leases) throw new Error('a worker needs the app opened in team mode with the worker role');
  const { service } = app;
  const leases = team.leases;
  const queue = await team.queue();
  const name = options.name ?? 'agents';
  let stopping = false;
  await queue.work({ concurrency: options.concurrency, name }, async (planId, signal, job) => {
    // Also aborted when stop() gives up waiting: that is not a lost job.
    const lost = () => {
      if (stopping) return;
      options.log(`plan ${planId}: this worker lost its job (it stopped beating); another worker takes the plan over`);
      options.onLost?.(planId);
    };
    signal.addEventListener('abort', lost, { once: true });
    try {
      // Before anything is read: from here on the last holder's writes are refused.
      await leases.takeJob(planId);
      const plan = await service.stores.plans.get(planId);
      if (!plan) {
        // Deleted since it was queued: nothing to run, and nothing to retry.
        options.log(`plan ${planId}: not run (it was deleted)`);
        return;
      }
      const run = runOptionsOf(job);
      // A restore the last attempt died in is finished first, so the step runs on the tree it first ran on.
      await service.finishInterruptedRewinds(planId);
      if (plan.processingState === 'processing') {
        options.log(`plan ${planId}: taken over (attempt ${job.attempt + 1}); resuming from its last committed step`);
        await markInterrupted(service.lifecycle, service.stores.errors, plan, `Its worker stopped; taken over by ${name} on ${team.host}`);
        await service.retry(planId, run);
      } else if (job.attempt > 0 && wasInterrupted(plan)) {
        // The last attempt of this job ended interrupted (its connection to the database was lost): run it on.
        options.log(`plan ${planId}: its last attempt was interrupted (attempt ${job.attempt + 1}); resuming from the step it was in`);
        await service.retry(planId, run);
      } else if (isRunnable(plan)) {
        options.log(`plan ${planId}: ${job.reason}`);
        await service.runFrom(planId, run, job.resumeAt);
      } else {
        // Answered, retried or discarded elsewhere since it was queued, or a job run again after its run
        // ended (its worker died before the queue heard): nothing to run, and a plan ready to apply stays so.
        options.log(`plan ${planId}: not run (it is ${statusLabel(plan)})`);
        return;
      }
      const ended = await service.get(planId);
      options.log(`plan ${planId}: ${statusLabel(ended)}`);
      // Interrupted is not the run's outcome: the queue runs the job again, on any worker.
      if (wasInterrupted(ended)) throw new Error(`the run was interrupted: ${String(ended.errorDetails.message ?? 'no cause recorded')}`);
    } catch (error) {
      if (isStaleEpoch(error)) {
        // Another worker took the plan since this one did (this one was asleep or cut off): the
        // database refused the write, and this worker must stop as if it had died.
        options.log(`plan ${planId}: this worker's writes were refused (another worker took the plan over); it stops`);
        if (!stopping) options.onLost?.(planId);
        throw error;
      }
      // The queue runs the job again (on any worker): say why this attempt ended, or nobody learns it.
      options.log(`plan ${planId}: this attempt failed (the queue runs it again): ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    } finally {
      signal.removeEventListener('abort', lost);
      await leases.releaseJob(planId).catch(() => undefined);
    }
  });
  return {
    stop: (timeoutMs) => {
      stopping = true;
      return queue.stop(timeoutMs);
    },
  };
}

function wasInterrupted(plan: Plan): boolean {
  return plan.processingState === 'errored' && plan.errorDetails.category === 'interrupted';
}
