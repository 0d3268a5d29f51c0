import type { BuiltinProfileName } from '../../../../shared/profiles';

/** The in-place recoveries the console offers; edit-step and replan take a file, so they stay on the command line. */
export type ConsoleRecovery = 'skip' | 'change_profile';

export interface RecoverySlice {
  recovering: ConsoleRecovery | null;
  recoveryError: string | null;
  /** Marks the failed step skipped; the plan is queued to go on with the next step. */
  skipStep(): Promise<void>;
  /** Switches the plan to a built-in profile; the plan is queued to go on. */
  changeProfile(profile: BuiltinProfileName): Promise<void>;
}
