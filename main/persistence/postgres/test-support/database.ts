/** What a PostgreSQL test file uses: the run's cluster (or why there is none), and a fresh database in it per file. */
import pg from 'pg';
import { ulid } from 'ulid';
import { afterAll, beforeAll, inject } from 'vitest';

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

/**
 * Creates an empty database for this test file before its tests and drops it after, so files do
 * not see each other's rows. Read `url()` inside tests or hooks.
 */
export function useFreshDatabase(): { url(): string } {
  let databaseUrl: string | undefined;
  let name: string | undefined;
  const server = testPostgres().url;
  beforeAll(async () => {
    if (!server) return;
    name = `test_${ulid().toLowerCase()}`;
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    databaseUrl = withDatabase(server, name);
  });
  afterAll(async () => {
    if (!server || !name) return;
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  return {
    url: () => {
      if (!databaseUrl) throw new Error('the fresh database is made in beforeAll: read url() inside a test');
      return databaseUrl;
    },
  };
}
