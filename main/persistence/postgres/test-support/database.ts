/** What a PostgreSQL test file uses: the run's cluster (or why there is none), and a fresh database in it per file. */
import pg from 'pg';
import { ulid } from 'ulid';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { openPostgresStores, type PostgresStores } from '../stores';

/** The run's server, or the reason the PostgreSQL tests skip. */
export function testPostgres(): { url?: string; reason: string } {
  const provided = inject('postgres') ?? { reason: 'vitest ran without main/persistence/postgres/test-support/global-setup.ts' };
  return { url: provided.url, reason: provided.reason ?? '' };
}

/** The name for a describe that skips without PostgreSQL, saying why. */
export function postgresSuiteName(name: string): string {
  const { url, reason } = testPostgres();
  return url ? name : `${name} (skipped: ${reason})`;
}

/** A URL like `serverUrl` naming another database. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates an empty database on the run's server; returns its URL and how to drop it. */
export async function createTestDatabase(server: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `test_${ulid().toLowerCase()}`;
  await adminQuery(server, `CREATE DATABASE ${name}`);
  return { url: withDatabase(server, name), drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function adminQuery(server: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database for this test file before its tests and drops it after, so files do
 * not see each other's rows. Read `url()` inside tests or hooks.
 */
export function useFreshDatabase(): { url(): string } {
  let database: { url: string; drop(): Promise<void> } | undefined;
  const server = testPostgres().url;
  beforeAll(async () => {
    if (server) database = await createTestDatabase(server);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    url: () => {
      if (!database) throw new Error('the fresh database is made in beforeAll: read url() inside a test');
      return database.url;
    },
  };
}

/**
 * The stores over this file's fresh, migrated database, emptied before each test (the contract
 * suites expect a store with nothing in it). Read `stores()` inside tests or hooks.
 */
export function usePostgresStores(): { url(): string; stores(): PostgresStores } {
  const database = useFreshDatabase();
  let stores: PostgresStores | undefined;
  beforeAll(async () => {
    if (testPostgres().url) stores = await openPostgresStores(database.url());
  });
  beforeEach(async () => {
    if (stores) await emptyTables(stores);
  });
  afterAll(async () => {
    await stores?.close();
  });
  return {
    url: database.url,
    stores: () => {
      if (!stores) throw new Error('the stores are opened in beforeAll: read stores() inside a test');
      return stores;
    },
  };
}

/** Deletes every row but the schema version's. */
async function emptyTables(stores: PostgresStores): Promise<void> {
  const tables = await stores.db.query<{ name: string }>(
    // change_entries before changesets and blobs, which it references.
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'agents_schema' ORDER BY tablename = 'changesets', tablename = 'blobs'",
  );
  // DELETE, not TRUNCATE: on a few rows it costs a fraction of TRUNCATE's new files per table.
  // Not fenced by the epochs a test's leases left this process holding.
  await stores.db.query(`BEGIN; SELECT set_config('agents.fences', '', true); ${tables.map((t) => `DELETE FROM ${t.name};`).join(' ')} COMMIT;`);
}

/**
 * A harness factory for the port contract suites (../../contracts/), once they await: each
 * harness is a store over this file's database (made and migrated on first use, dropped after
 * the file), emptied first. Call it while the file's tests are collected.
 */
export function postgresHarness<T>(create: (stores: PostgresStores) => T): () => Promise<{ subject: T; dispose(): void }> {
  let opened: Promise<{ stores: PostgresStores; drop(): Promise<void> }> | undefined;
  afterAll(async () => {
    if (!opened) return;
    const { stores, drop } = await opened;
    await stores.close();
    await drop();
  });
  return async () => {
    const server = testPostgres().url;
    if (!server) throw new Error(`no PostgreSQL: ${testPostgres().reason}`);
    opened ??= createTestDatabase(server).then(async ({ url, drop }) => ({ stores: await openPostgresStores(url), drop }));
    const { stores } = await opened;
    await emptyTables(stores);
    return { subject: create(stores), dispose: () => {} };
  };
}
