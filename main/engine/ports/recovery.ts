import type { Phase, Plan } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';

export interface FailureReport {
  plan: Plan;
  phase: Phase;
  error: unknown;
  /** 1 for the first attempt. */
  attempt: number;
  decisionId: string | null;
  mode: 'strategize' | 'runtime' | 'stub';
}

export type RecoveryVerdict =
  | { retry: true; delayMs: number; details: Record<string, unknown> }
  | { retry: false; details: Record<string, unknown> };

/** What the executor asks after a failure. The ErrorRecoveryService implements it. */
export interface ErrorRecovery {
  onFailure(report: FailureReport): Promise<RecoveryVerdict>;
  /** How many times a step has been retried automatically since its last failure that was not retried. */
  retriedSoFar(planId: string, phase: Phase, decisionId: string): Promise<number>;
}

/** Where error records are kept. The SQLite log implements the same contract. */
export interface ErrorLog {
  record(record: ErrorRecord): Promise<void>;
  listForPlan(planId: string): Promise<ErrorRecord[]>;
}
