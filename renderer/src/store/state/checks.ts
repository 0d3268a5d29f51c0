import type { PlanChecksView } from '../../../../shared/checks';
import type { StreamEvent } from '../../../../shared/events';
import type { LoadStatus } from './load-status';

/** A check running now, as its events tell it: its output grows as it is written. */
export interface RunningCheck {
  resultId: string;
  name: string;
  run: string;
  decisionId: string | null;
  index: number;
  total: number;
  output: string;
}

/** Verify before apply (README.md, "Verify"): the open plan's checks, their results and verdicts, kept live by the check events. */
export interface ChecksSlice {
  checksView: PlanChecksView | null;
  checksStatus: LoadStatus;
  checksError: string | null;
  /** Checks running now, by result id, in the order they started. */
  runningChecks: RunningCheck[];
  /** Reads plans.checks again, coalesced. */
  refreshChecks(): void;
  /** Folds the open plan's new events in: output streams into the running check's row; a pass that ends reloads the view. */
  ingestCheckEvents(events: readonly StreamEvent[]): void;
}
