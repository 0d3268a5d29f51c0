/**
 * Compile-time proof that each PostgreSQL store is the asynchronous form of its port: every
 * method of the (today synchronous) interface, with the same arguments, returning a Promise of
 * the same result. Delete this file once the ports in main/engine are asynchronous and the
 * stores declare `implements` themselves.
 */
import type { ApprovalStore } from '../../engine/approvals';
import type { AppliedLog } from '../../engine/changeset/review';
import type { ChangeSetStore } from '../../engine/changeset-store';
import type { CheckResultStore } from '../../engine/checks/check-store';
import type { CheckpointStore } from '../../engine/checkpoints/checkpoint-store';
import type { EventLog } from '../../engine/event-stream';
import type { LeaseStore } from '../../engine/leases';
import type { PlanRepository } from '../../engine/plan-repository';
import type { ErrorLog } from '../../engine/recovery';
import type { SandboxFileStore } from '../../engine/sandbox/sandbox-files';
import type { InvocationLog } from '../../engine/tool-runner';
import type { PostgresStores } from './stores';

/** Each method of T returning a Promise of what it returns today (of anything, where it returns void, as a sync void method may). */
export type Promised<T> = {
  [K in keyof T]: T[K] extends ((...args: infer A) => infer R) | undefined ? (...args: A) => [R] extends [void] ? Promise<unknown> : Promise<R> : T[K];
};

type Implements<Store extends Port, Port> = Store;

/** The transaction of the asynchronous ChangeSetStore: `fn` awaits, the stores it calls join. */
interface AsyncAtomically {
  atomically<T>(fn: () => Promise<T>): Promise<T>;
}

export type PostgresStoresArePromisedPorts = [
  Implements<PostgresStores['plans'], Promised<PlanRepository>>,
  Implements<PostgresStores['changesets'], Promised<Omit<ChangeSetStore, 'atomically'>> & AsyncAtomically>,
  Implements<PostgresStores['events'], Promised<Required<EventLog>> extends infer P ? Omit<P, 'externalVersion'> : never>,
  Implements<PostgresStores['invocations'], Promised<InvocationLog>>,
  Implements<PostgresStores['errors'], Promised<ErrorLog>>,
  Implements<PostgresStores['approvals'], Promised<ApprovalStore>>,
  Implements<PostgresStores['applied'], Promised<AppliedLog>>,
  Implements<PostgresStores['checks'], Promised<CheckResultStore>>,
  Implements<PostgresStores['sandboxFiles'], Promised<SandboxFileStore>>,
  Implements<PostgresStores['checkpoints'], Promised<CheckpointStore>>,
  Implements<PostgresStores['leases'], Promised<LeaseStore>>,
];
