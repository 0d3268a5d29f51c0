import { describe } from 'vitest';
import { EventPublisher } from '../../engine/ports/event-stream';
import { approvalStoreContract } from '../contracts/approval-store.contract';
import { changeSetStoreContract } from '../contracts/changeset-store.contract';
import { errorLogContract } from '../contracts/error-log.contract';
import { eventLogContract } from '../contracts/event-log.contract';
import { invocationLogContract } from '../contracts/invocation-log.contract';
import { planRepositoryContract } from '../contracts/plan-repository.contract';
import type { StoresFactory } from '../contracts/ports';
import { unitContract } from '../contracts/unit.contract';
import { postgresHarness, postgresSuiteName, testPostgres } from './test-support/database';

// The port contract suites the SQLite stores pass (../contracts.test.ts), against PostgreSQL.
describe.skipIf(!testPostgres().url)(postgresSuiteName('the port contracts'), () => {
  const name = 'PostgreSQL';
  planRepositoryContract(name, postgresHarness((s) => s.plans));
  changeSetStoreContract(name, postgresHarness((s) => s.changesets));
  eventLogContract(name, postgresHarness((s) => s.events));
  invocationLogContract(name, postgresHarness((s) => s.invocations));
  errorLogContract(name, postgresHarness((s) => s.errors));
  approvalStoreContract(name, postgresHarness((s) => s.approvals));

  // One transaction over every store: the changeset store's, which the others' calls join.
  const stores = postgresHarness((s) => s);
  const factory: StoresFactory = async () => {
    const { subject } = await stores();
    return { stores: { ...subject, atomically: (fn) => subject.changesets.atomically(fn) }, dispose: async () => undefined };
  };
  unitContract(name, factory, (s) => new EventPublisher(s.events), { oneConnection: false });
});
