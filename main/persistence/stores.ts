import { SqliteApprovalStore } from './approval-store';
import { SqliteChangeSetStore } from './changeset-store';
import { openDataDirDatabase, type SqliteDatabase } from './database';
import { SqliteErrorLog } from './error-log';
import { SqliteEventLog } from './event-log';
import { SqliteInvocationLog } from './invocation-log';
import { type LeaseStoreOptions, SqliteLeaseStore } from './lease-store';
import { SqlitePlanRepository } from './plan-repository';

/** Every store over one connection to `<dataDir>/agents.db`. */
export interface SqliteStores {
  db: SqliteDatabase;
  plans: SqlitePlanRepository;
  changesets: SqliteChangeSetStore;
  events: SqliteEventLog;
  invocations: SqliteInvocationLog;
  errors: SqliteErrorLog;
  leases: SqliteLeaseStore;
  approvals: SqliteApprovalStore;
  close(): void;
}

export interface OpenStoresOptions {
  leases?: LeaseStoreOptions;
}

export function createStores(db: SqliteDatabase, options: OpenStoresOptions = {}): SqliteStores {
  return {
    db,
    plans: new SqlitePlanRepository(db),
    changesets: new SqliteChangeSetStore(db),
    events: new SqliteEventLog(db),
    invocations: new SqliteInvocationLog(db),
    errors: new SqliteErrorLog(db),
    leases: new SqliteLeaseStore(db, options.leases),
    approvals: new SqliteApprovalStore(db),
    close: () => {
      if (db.isOpen) db.close();
    },
  };
}

export function openStores(dataDir: string, options: OpenStoresOptions = {}): SqliteStores {
  return createStores(openDataDirDatabase(dataDir), options);
}
