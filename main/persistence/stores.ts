import { SqliteAppliedLog } from './applied-log';
import { SqliteApprovalStore } from './approval-store';
import { SqliteChangeSetStore } from './changeset-store';
import { SqliteCheckResultStore } from './check-result-store';
import { SqliteCheckpointStore } from './checkpoint-store';
import { openDataDirDatabase, type SqliteDatabase } from './database';
import { SqliteErrorLog } from './error-log';
import { SqliteEventLog } from './event-log';
import { SqliteInvocationLog } from './invocation-log';
import { type LeaseStoreOptions, SqliteLeaseStore } from './lease-store';
import { SqlitePlanRepository } from './plan-repository';
import { SqliteSandboxFileStore } from './sandbox-file-store';
import { connectionOf } from './sql';

/** Every store over one connection to `<dataDir>/agents.db`. */
export interface SqliteStores {
  db: SqliteDatabase;
  plans: SqlitePlanRepository;
  changesets: SqliteChangeSetStore;
  events: SqliteEventLog;
  invocations: SqliteInvocationLog;
  errors: SqliteErrorLog;
  leases: SqliteLeaseStore;
  applied: SqliteAppliedLog;
  approvals: SqliteApprovalStore;
  sandboxFiles: SqliteSandboxFileStore;
  checks: SqliteCheckResultStore;
  checkpoints: SqliteCheckpointStore;
  /** Runs several reads on one snapshot of the database, so another process's commit cannot fall between them. */
  readTogether<T>(read: () => Promise<T>): Promise<T>;
  /** Runs `fn` as one transaction over every store (see SqliteConnection.unit). */
  atomically<T>(fn: () => Promise<T>): Promise<T>;
  close(): void;
}

export interface OpenStoresOptions {
  leases?: LeaseStoreOptions;
}

export function createStores(db: SqliteDatabase, options: OpenStoresOptions = {}): SqliteStores {
  const connection = connectionOf(db);
  return {
    db,
    plans: new SqlitePlanRepository(db),
    changesets: new SqliteChangeSetStore(db),
    events: new SqliteEventLog(db),
    invocations: new SqliteInvocationLog(db),
    errors: new SqliteErrorLog(db),
    leases: new SqliteLeaseStore(db, options.leases),
    applied: new SqliteAppliedLog(db),
    approvals: new SqliteApprovalStore(db),
    sandboxFiles: new SqliteSandboxFileStore(db),
    checks: new SqliteCheckResultStore(db),
    checkpoints: new SqliteCheckpointStore(db),
    readTogether: (read) => connection.unit('deferred', read),
    atomically: (fn) => connection.unit('immediate', fn),
    close: () => {
      if (db.isOpen) db.close();
    },
  };
}

export function openStores(dataDir: string, options: OpenStoresOptions = {}): SqliteStores {
  return createStores(openDataDirDatabase(dataDir), options);
}
