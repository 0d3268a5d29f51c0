import type { CheckpointSummary, RewindPreview } from '../../../../shared/checkpoints';
import type { StreamEvent } from '../../../../shared/events';
import type { LoadStatus } from './load-status';

/** The rewind confirmation: the step it goes back to, and what the host says the rewind would change. */
export interface RewindDialog {
  toStep: number;
  /** Null until the host's answer is in. */
  preview: RewindPreview | null;
  loading: boolean;
  /** Why the preview could not be made (the host's one line). */
  error: string | null;
}

/** Checkpoints and rewind (README.md, "Checkpoints"): the open plan's checkpoints, kept live by its events, and the rewind confirmation. */
export interface CheckpointsSlice {
  /** One per step that has started, oldest first. */
  checkpoints: CheckpointSummary[];
  checkpointsStatus: LoadStatus;
  rewindDialog: RewindDialog | null;
  /** The confirmed rewind is on its way. */
  rewinding: boolean;
  rewindError: string | null;
  /** Reads plans.checkpoints again, coalesced. */
  refreshCheckpoints(): void;
  /** Folds the open plan's new events in: a checkpoint taken is listed; a rewind, here or from another process, refreshes what it changed. */
  ingestCheckpointEvents(events: readonly StreamEvent[]): void;
  /** Opens the confirmation of a rewind to before step `toStep`, listing the files it would change. */
  askRewind(toStep: number): Promise<void>;
  cancelRewind(): void;
  /** Rewinds, if the plan still allows it; the dialog closes once it is done. */
  confirmRewind(): Promise<void>;
}
