import type { PlanCompare } from '../../../../shared/plan-compare';
import type { BuiltinProfileName } from '../../../../shared/profiles';

/** The fork confirmation: the step it goes on from, and what the operator changes from there. */
export interface ForkDialog {
  atStep: number;
  forking: boolean;
  /** Why the fork was refused (the host's one line, or the rule's reason). */
  error: string | null;
}

/** Two runs side by side: the open plan (a) and the one it is compared with (b). */
export interface CompareView {
  with: string;
  status: 'loading' | 'loaded' | 'error';
  data: PlanCompare | null;
  error: string | null;
}

/** Fork and compare in the console (README.md, "Fork and compare"). */
export interface ForkSlice {
  forkDialog: ForkDialog | null;
  compareView: CompareView | null;
  /** Opens the fork confirmation for step `atStep`. */
  askFork(atStep: number): void;
  cancelFork(): void;
  /** Forks with the profile and model chosen (empty: the origin's), then opens the new plan; it is not run. */
  confirmFork(options: { profile?: BuiltinProfileName; model?: string }): Promise<void>;
  /** Sets the open plan beside `otherId`: what each changed and what each run took. */
  openCompare(otherId: string): Promise<void>;
  closeCompare(): void;
}
