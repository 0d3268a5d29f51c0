import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresHarness, postgresSuiteName, testPostgres, useFreshDatabase } from './test-support/database';

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

describe.skipIf(!testPostgres().url)(postgresSuiteName('postgresHarness, for the contract suites'), () => {
  const factory = postgresHarness((stores) => stores.events);

  it('hands out a store over an emptied database each time', async () => {
    const first = await factory();
    await first.subject.appendNext('01PLAN', 'strategize_started', {});
    expect(await first.subject.lastSeq('01PLAN')).toBe(1);
    first.dispose();
    const second = await factory();
    expect(await second.subject.lastSeq('01PLAN')).toBe(0);
    second.dispose();
  });
});
