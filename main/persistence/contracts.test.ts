import { InMemoryApprovalStore, InMemoryChangeSetStore, InMemoryEventLog, InMemoryInvocationLog, InMemoryPlanRepository } from '../engine/test-support/in-memory-stores';
import { SqliteApprovalStore } from './approval-store';
import { approvalStoreContract } from './contracts/approval-store.contract';
import { SqliteChangeSetStore } from './changeset-store';
import { changeSetStoreContract } from './contracts/changeset-store.contract';
import { errorLogContract } from './contracts/error-log.contract';
import { eventLogContract } from './contracts/event-log.contract';
import { invocationLogContract } from './contracts/invocation-log.contract';
import { planRepositoryContract } from './contracts/plan-repository.contract';
import { SqliteErrorLog } from './error-log';
import { SqliteEventLog } from './event-log';
import { SqliteInvocationLog } from './invocation-log';
import { SqlitePlanRepository } from './plan-repository';
import { inMemoryHarness, sqliteHarness } from './test-support/fixtures';

// Each engine interface, against the in-memory implementation and the SQLite one on a real file.
planRepositoryContract('in memory', inMemoryHarness(() => new InMemoryPlanRepository()));
planRepositoryContract('SQLite', sqliteHarness((db) => new SqlitePlanRepository(db)));

changeSetStoreContract('in memory', inMemoryHarness(() => new InMemoryChangeSetStore()));
changeSetStoreContract('SQLite', sqliteHarness((db) => new SqliteChangeSetStore(db)));

eventLogContract('in memory', inMemoryHarness(() => new InMemoryEventLog()));
eventLogContract('SQLite', sqliteHarness((db) => new SqliteEventLog(db)));

invocationLogContract('in memory', inMemoryHarness(() => new InMemoryInvocationLog()));
invocationLogContract('SQLite', sqliteHarness((db) => new SqliteInvocationLog(db)));

// The engine has no in-memory ErrorLog; the contract still pins the SQLite one down.
errorLogContract('SQLite', sqliteHarness((db) => new SqliteErrorLog(db)));

approvalStoreContract('in memory', inMemoryHarness(() => new InMemoryApprovalStore()));
approvalStoreContract('SQLite', sqliteHarness((db) => new SqliteApprovalStore(db)));
