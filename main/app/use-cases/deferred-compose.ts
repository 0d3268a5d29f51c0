import type { PlanContext } from './plan-context';
import type { PlanReading } from './reading';
import type { RunRegistry } from './run-registry';
import type { PlanRunning } from './running';
import { planApprovals } from './approvals';
import { planApplying } from './applying';
import { planCheckpoints } from './checkpoints';
import { planFixing } from './fixing';
import { planForking } from './forking';
import { planReviewing } from './reviewing';
import { planSandboxFiles } from './sandbox-files';
import { planVerifying } from './verifying';

/** The use cases deferred.ts loads on demand, composed over the same context, runs, reading and running as the rest. */
export function composeDeferred(ctx: PlanContext, runs: RunRegistry, reading: PlanReading, running: PlanRunning) {
  const verifying = planVerifying(ctx, runs);
  const checkpoints = planCheckpoints(ctx, runs);
  return {
    verifying,
    approvals: planApprovals(ctx, runs, running.runFrom),
    fixing: planFixing(ctx, runs, running.run, verifying, checkpoints),
    applying: planApplying(ctx, runs, reading, verifying),
    sandboxFiles: planSandboxFiles(ctx, runs),
    checkpoints,
    forking: planForking(ctx, runs),
    reviewing: planReviewing(ctx, reading),
  };
}

export type DeferredUseCases = ReturnType<typeof composeDeferred>;
