import type { StrategyDecision } from '../../shared/domain';
import type { PlanLifecycleService } from '../engine/run/lifecycle';

type Mode = 'run' | 'step';

/**
 * Step mode and breakpoints for one running plan. The executor awaits `beforeDecision` between
 * decisions, so a pause never lands inside a tool call.
 */
export class RunController {
  private mode: Mode;
  private pauseRequested = false;
  private release: (() => void) | null = null;
  readonly breakpoints = new Set<string>();

  constructor(
    private readonly planId: string,
    private readonly lifecycle: PlanLifecycleService,
    options: { step?: boolean; breakpoints?: Iterable<string> } = {},
  ) {
    this.mode = options.step ? 'step' : 'run';
    for (const id of options.breakpoints ?? []) this.breakpoints.add(id);
  }

  get isPaused(): boolean {
    return this.release !== null;
  }

  /** Runs exactly one more decision, then pauses again. */
  step(): void {
    this.mode = 'step';
    this.resume();
  }

  /** Runs to the end or the next breakpoint. */
  continue(): void {
    this.mode = 'run';
    this.resume();
  }

  /** Stops before the next decision; already paused, there is nothing to do. */
  pause(): void {
    if (!this.isPaused) this.pauseRequested = true;
  }

  toggleBreakpoint(decisionId: string): boolean {
    if (this.breakpoints.delete(decisionId)) return false;
    this.breakpoints.add(decisionId);
    return true;
  }

  readonly beforeDecision = async (decision: StrategyDecision, index: number, total: number): Promise<void> => {
    const reason = this.pauseRequested ? 'pause' : this.mode === 'step' ? 'step' : this.breakpoints.has(decision.id) ? 'breakpoint' : null;
    if (!reason) return;
    this.pauseRequested = false;
    await this.lifecycle.transition(this.planId, 'paused');
    await this.lifecycle.events.publish(this.planId, 'paused', { decisionId: decision.id, index: index + 1, total, reason, description: decision.description });
    await new Promise<void>((resolve) => {
      this.release = resolve;
    });
    await this.lifecycle.transition(this.planId, 'processing');
  };

  private resume(): void {
    const release = this.release;
    this.release = null;
    release?.();
  }
}
