import { EventPublisher } from '../engine/ports/event-stream';
import {
  InMemoryApprovalStore,
  InMemoryChangeSetStore,
  InMemoryErrorLog,
  InMemoryEventLog,
  InMemoryInvocationLog,
  InMemoryPlanRepository,
} from '../engine/test-support/in-memory-stores';
import { approvalStoreContract } from './contracts/approval-store.contract';
import { changeSetStoreContract } from './contracts/changeset-store.contract';
import { errorLogContract } from './contracts/error-log.contract';
import { eventLogContract } from './contracts/event-log.contract';
import { invocationLogContract } from './contracts/invocation-log.contract';
import { planRepositoryContract } from './contracts/plan-repository.contract';
import { unitContract } from './contracts/unit.contract';
import { type PortStores, portOf, type StoresFactory } from './contracts/ports';
import { openStores } from './stores';
import { tempDir } from './test-support/fixtures';
import { rmSync } from 'node:fs';

/** SQLite: every store over one connection to a new database file. */
const sqlite: StoresFactory = async () => {
  const dir = tempDir();
  const stores = openStores(dir);
  return {
    stores,
    dispose: async () => {
      stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The engine's in-memory fakes: one process's memory, no transactions. */
const inMemory: StoresFactory = async () => {
  const stores: PortStores = {
    plans: new InMemoryPlanRepository(),
    changesets: new InMemoryChangeSetStore(),
    events: new InMemoryEventLog(),
    invocations: new InMemoryInvocationLog(),
    errors: new InMemoryErrorLog(),
    approvals: new InMemoryApprovalStore(),
  };
  return { stores, dispose: async () => undefined };
};

// Each port against SQLite and the in-memory fakes; another adapter runs the same suites with its own factory.
for (const [name, factory] of [
  ['SQLite', sqlite],
  ['in memory', inMemory],
] as const) {
  planRepositoryContract(name, portOf(factory, (s) => s.plans));
  changeSetStoreContract(name, portOf(factory, (s) => s.changesets));
  eventLogContract(name, portOf(factory, (s) => s.events));
  invocationLogContract(name, portOf(factory, (s) => s.invocations));
  errorLogContract(name, portOf(factory, (s) => s.errors));
  approvalStoreContract(name, portOf(factory, (s) => s.approvals));
}

// Units (atomically) need a store with transactions: SQLite here.
unitContract('SQLite', sqlite, (stores) => new EventPublisher(stores.events), { oneConnection: true });
