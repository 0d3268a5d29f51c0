import type { CheckResult } from '../../../shared/checks';

/** Where each check's result is kept (README.md, "Verify"); SQLite in the app, in memory in some tests. */
export interface CheckResultStore {
  record(result: CheckResult): Promise<void>;
  /** The plan's results, oldest first. */
  listForPlan(planId: string): Promise<CheckResult[]>;
}
