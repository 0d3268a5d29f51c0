import { hostname } from 'node:os';
import { PlanError } from '../../../shared/errors';
import { isLeaseLive, type LeaseStore } from '../../engine/ports/leases';
import { TreeChangeTracker } from '../../engine/sandbox/tracker';
import type { RunController } from '../run-controller';

/** The runs of this process: what is running, its step controls, and the sandboxes' change caches. */
export class RunRegistry {
  /** Snapshot caches of shell.run's change capture, one per sandbox; dropped on discard. */
  readonly tracker = new TreeChangeTracker();
  readonly controllers = new Map<string, RunController>();
  /** What this process is doing to each plan: a run, a verify pass, a rewind. */
  readonly runs = new Map<string, Promise<unknown>>();

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
  async runElsewhere(planId: string): Promise<boolean> {
    const lease = await this.leases.get(planId);
    return lease !== undefined && lease.pid !== process.pid && isLeaseLive(lease);
  }

  /**
   * Runs `body` holding the plan: refused when this process already does something to it or another
   * process holds it; the plan's entry in `runs` is taken at once (before any await, so no other
   * task of this process can take it too) and its lease before `body` starts, so no run, verify,
   * apply or rewind of the plan starts until `body` ends.
   */
  hold<T>(planId: string, body: () => Promise<T> | T, onStarted?: () => void): Promise<T> {
    if (this.runs.has(planId)) return Promise.reject(new PlanError(`plan ${planId} is already running`, 'wrong_state'));
    const work = this.takeLease(planId)
      .then(async () => {
        onStarted?.();
        try {
          return await body();
        } finally {
          await this.leases.release(planId, process.pid);
        }
      })
      .finally(() => this.runs.delete(planId));
    this.runs.set(planId, work);
    return work;
  }

  private async takeLease(planId: string): Promise<void> {
    if (!(await this.leases.acquire(planId, process.pid, hostname()))) throw new PlanError(`plan ${planId} is being run by another process`, 'wrong_state');
  }

  /** Resolves when every run started in this process has ended. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.runs.values()]);
  }
}
