import { PgAppliedLog } from './applied-log';
import { PgApprovalStore } from './approval-store';
import { PgChangeSetStore } from './changeset-store';
import { PgCheckResultStore } from './check-result-store';
import { PgCheckpointStore } from './checkpoint-store';
import { PgDatabase, type PgDatabaseOptions } from './database';
import { PgErrorLog } from './error-log';
import { PgEventLog } from './event-log';
import { PgInvocationLog } from './invocation-log';
import { PgLeaseStore } from './lease-store';
import type { LeaseStoreOptions } from '../lease-store';
import { checkSchema, migrateDatabase } from './migrations';
import { PgObjectStore } from './object-store';
import { PgPlanRepository } from './plan-repository';
import { PgSandboxFileStore } from './sandbox-file-store';

/** Every store over one pool of connections to a PostgreSQL database. */
export interface PostgresStores {
  db: PgDatabase;
  plans: PgPlanRepository;
  changesets: PgChangeSetStore;
  events: PgEventLog;
  invocations: PgInvocationLog;
  errors: PgErrorLog;
  leases: PgLeaseStore;
  applied: PgAppliedLog;
  approvals: PgApprovalStore;
  sandboxFiles: PgSandboxFileStore;
  checks: PgCheckResultStore;
  checkpoints: PgCheckpointStore;
  /** Checkpointed file contents, in the database instead of a folder. */
  objects: PgObjectStore;
  /** Runs several reads on one snapshot of the database, so another process's commit cannot fall between them. */
  readTogether<T>(read: () => Promise<T>): Promise<T>;
  /** One transaction over every store: what a use case reads and writes commits whole or not at all. */
  atomically<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenPostgresOptions extends PgDatabaseOptions {
  leases?: LeaseStoreOptions;
  /**
   * Bring an older or empty database's schema up to date (workers and serve do; default true).
   * False only checks it, refusing one that is not at this process's version.
   */
  migrate?: boolean;
}

export function createPostgresStores(db: PgDatabase, options: { leases?: LeaseStoreOptions } = {}): PostgresStores {
  return {
    db,
    plans: new PgPlanRepository(db),
    changesets: new PgChangeSetStore(db),
    events: new PgEventLog(db),
    invocations: new PgInvocationLog(db),
    errors: new PgErrorLog(db),
    leases: new PgLeaseStore(db, options.leases),
    applied: new PgAppliedLog(db),
    approvals: new PgApprovalStore(db),
    sandboxFiles: new PgSandboxFileStore(db),
    checks: new PgCheckResultStore(db),
    checkpoints: new PgCheckpointStore(db),
    objects: new PgObjectStore(db),
    readTogether: (read) => db.readTogether(read),
    atomically: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}

/**
 * Connects to the database at `url`, migrates (or checks) its schema and returns the stores.
 * An unreachable database, or one whose schema is newer than this process, throws a one-line
 * DatabaseError (a ValidationError of `database`: exit 2 in the CLI).
 */
export async function openPostgresStores(url: string, options: OpenPostgresOptions = {}): Promise<PostgresStores> {
  const db = new PgDatabase(url, options);
  try {
    if (options.migrate === false) await checkSchema(db);
    else await migrateDatabase(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createPostgresStores(db, options);
}
