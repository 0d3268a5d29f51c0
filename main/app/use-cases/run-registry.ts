import type { Plan } from '../../../shared/domain';
import { PlanError } from '../../../shared/errors';
import { isLeaseLive, type LeaseStore } from '../../engine/leases';
import { TreeChangeTracker } from '../../engine/sandbox/tracker';
import type { RunController } from '../run-controller';

/** The runs of this process: what is running, its step controls, and the sandboxes' change caches. */
export class RunRegistry {
  /** Snapshot caches of shell.run's change capture, one per sandbox; dropped on discard. */
  readonly tracker = new TreeChangeTracker();
  readonly controllers = new Map<string, RunController>();
  readonly runs = new Map<string, Promise<Plan>>();

  constructor(private readonly leases: LeaseStore) {}

  isRunning(planId: string): boolean {
    return this.runs.has(planId);
  }

  controller(planId: string): RunController {
    const controller = this.controllers.get(planId);
    if (!controller) throw new PlanError(`plan ${planId} is not running in this process`, 'not_running');
    return controller;
  }

  /** Another live process holds the plan's lease: its run is using the sandbox. */
  runElsewhere(planId: string): boolean {
    const lease = this.leases.get(planId);
    return lease !== undefined && lease.pid !== process.pid && isLeaseLive(lease);
  }

  /** Resolves when every run started in this process has ended. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.runs.values()]);
  }
}
