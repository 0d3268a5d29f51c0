import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from './test-support/database';

describe.skipIf(!testPostgres().url)(postgresSuiteName('the test PostgreSQL cluster'), () => {
  const database = useFreshDatabase();

  it('serves a fresh database of its own to each test file', async () => {
    const client = new pg.Client({ connectionString: database.url() });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; version: string }>('SELECT current_database() AS db, current_setting($1) AS version', ['server_version_num']);
      expect(rows[0]!.db).toMatch(/^test_/);
      expect(Number(rows[0]!.version)).toBeGreaterThanOrEqual(130000);
    } finally {
      await client.end();
    }
  });
});
