import type { ApprovalStore } from '../../engine/ports/approvals';
import type { ChangeSetStore } from '../../engine/ports/changeset-store';
import type { EventLog } from '../../engine/ports/event-stream';
import type { PlanRepository } from '../../engine/ports/plan-repository';
import type { ErrorLog } from '../../engine/ports/recovery';
import type { InvocationLog } from '../../engine/ports/invocation-log';
import type { HarnessFactory } from '../test-support/fixtures';

/** The ports the contract suites exercise, as one adapter provides them over one database. */
export interface PortStores {
  plans: PlanRepository;
  changesets: ChangeSetStore;
  events: EventLog;
  invocations: InvocationLog;
  errors: ErrorLog;
  approvals: ApprovalStore;
  /** One transaction over every store (see SqliteConnection.unit); absent where there are none. */
  atomically?<T>(fn: () => Promise<T>): Promise<T>;
}

/** Opens a fresh set of stores (a new database, or a new schema) for one test, and how to throw it away. */
export type StoresFactory = () => Promise<{ stores: PortStores; dispose(): Promise<void> }>;

/** One port of a fresh set of stores, for a suite that tests that port alone. */
export function portOf<T>(factory: StoresFactory, pick: (stores: PortStores) => T): HarnessFactory<T> {
  return async () => {
    const opened = await factory();
    return { subject: pick(opened.stores), dispose: opened.dispose };
  };
}
