import type { ChangeEntryMeta, ResponseOf, ReviewFile } from '../../../../shared/contract';
import type { LoadStatus } from './load-status';

export type ApplyResult = ResponseOf<'plans.apply'>;

export type FileDiff = ResponseOf<'plans.reviewDiff'>;

export type FileDiffState = { status: 'loading'; key: string } | { status: 'loaded'; key: string; data: FileDiff } | { status: 'error'; key: string; message: string };

/** What one apply would write: per file, the hunks accepted (null: the whole file) and its line counts. */
export interface ApplyPlanFile {
  path: string;
  hunks: number[] | null;
  insertions: number;
  deletions: number;
}

export interface ChangesSlice {
  changesetId: string | null;
  changeEntries: ChangeEntryMeta[];
  changesTotal: number;
  changesStatus: LoadStatus;
  changesError: string | null;
  /** The changeset as files to review: one row per path, netted across steps. */
  reviewFiles: ReviewFile[];
  /** The reviewed file whose diff is shown. */
  selectedPath: string | null;
  fileDiffs: Record<string, FileDiffState>;
  /** Paths left out of the next apply; everything else is included. */
  excludedPaths: Record<string, true>;
  /** Per path, the hunks (1-based) left out of the next apply. */
  rejectedHunks: Record<string, number[]>;
  /** 'confirming' while the operator is asked before anything is written into the project. */
  applyStatus: 'idle' | 'confirming' | 'applying';
  applyResult: ApplyResult | null;
  /** Why apply needs a second confirmation (a check failed), once the operator confirmed the first: the dialog asks again. */
  applyFailedChecks: string | null;
  /** Reloads the first page (and as many more as were loaded), coalesced: after a gap in seq or a resync. */
  refreshChanges(): void;
  /** Reads the review again, coalesced: what is applied changed, or a path changed twice needs netting. */
  refreshReview(): void;
  /**
   * Appends entries that change_recorded events carried, skipping any already listed, and folds
   * them into the review. Until every page is loaded, only the total grows: the entry comes with
   * its page.
   */
  appendChanges(entries: readonly ChangeEntryMeta[], changesetId: string | null): void;
  /** Opens the reviewed file a recorded entry belongs to. */
  selectEntry(entryId: string | null): void;
  selectPath(path: string | null): void;
  moveEntrySelection(delta: number): void;
  togglePath(path: string): void;
  /** Declines a hunk, or accepts it again; kept with the plan, so the model is told (plans.rejectHunks). */
  toggleHunk(path: string, hunk: number): void;
  /** Why a declined hunk was declined, for the model. */
  setHunkReason(path: string, hunk: number, reason: string): Promise<void>;
  /** Unticks the hunks the plan keeps declined, where the page has no verdict of its own: the plan or its review just loaded. */
  seedDeclinedHunks(): void;
  setAllIncluded(included: boolean): void;
  /** Asks for confirmation before applying what was accepted. */
  applySelected(): Promise<void>;
  cancelApply(): void;
  /** Writes the accepted files and hunks; conflicts come back per file. */
  confirmApply(): Promise<void>;
}
