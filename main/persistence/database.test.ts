import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase, openDataDirDatabase, pragma, runMigrations, schemaVersion } from './database';
import { SqliteErrorLog } from './error-log';
import { SqliteEventLog } from './event-log';
import { MIGRATIONS } from './migrations';
import { SqlitePlanRepository } from './plan-repository';
import { makePlan, tempDir } from './test-support/fixtures';

describe('openDatabase', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = tempDir();
    dirs.push(dir);
    return path.join(dir, 'agents.db');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('sets the pragmas the stores rely on', () => {
    const db = openDatabase(fresh());
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'busy_timeout')).toBe(5000);
    expect(pragma(db, 'foreign_keys')).toBe(1);
    expect(pragma(db, 'synchronous')).toBe(1); // NORMAL
    db.close();
  });

  it('migrates a new file to the latest version and creates every table', () => {
    const db = openDatabase(fresh());
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((t) => t.name);
    expect(tables).toEqual(
      expect.arrayContaining(['plans', 'decisions', 'changesets', 'change_entries', 'blobs', 'tool_invocations', 'error_records', 'events', 'plan_leases']),
    );
    db.close();
  });

  it('is idempotent: opening again keeps the version and the data', async () => {
    const file = fresh();
    const first = openDatabase(file);
    const plan = makePlan();
    await new SqlitePlanRepository(first).insert(plan);
    first.close();
    const second = openDatabase(file);
    expect(schemaVersion(second)).toBe(MIGRATIONS.length);
    expect(runMigrations(second)).toBe(MIGRATIONS.length);
    expect(await new SqlitePlanRepository(second).get(plan.id)).toEqual(plan);
    second.close();
  });

  it('applies a migration appended later, once', () => {
    const file = fresh();
    openDatabase(file).close();
    const later = [...MIGRATIONS, 'CREATE TABLE later_table (x INTEGER);'];
    const db = openDatabase(file, later);
    expect(schemaVersion(db)).toBe(later.length);
    db.close();
    // Re-running would fail on "table already exists" if it were applied twice.
    openDatabase(file, later).close();
  });

  it('gives change_recorded events stored before migration 5 the metadata of their entry', async () => {
    const file = fresh();
    const old = openDatabase(file, MIGRATIONS.slice(0, 4));
    old.exec(`INSERT INTO changesets (id, plan_id, created_at) VALUES ('c1', 'p1', 't')`);
    old.exec(`INSERT INTO change_entries (changeset_id, seq, id, path, operation, after_hash, binary, decision_id, insertions, deletions, created_at)
      VALUES ('c1', 1, 'e1', 'LICENSE', 'create', 'h', 0, 'd1', 3, 0, 't')`);
    old.exec(`INSERT INTO events (plan_id, seq, ts, type, data) VALUES ('p1', 1, 't', 'change_recorded', '{"decisionId":"d1","entryId":"e1","path":"LICENSE","operation":"create"}')`);
    old.close();
    const db = openDatabase(file);
    const events = await new SqliteEventLog(db).list('p1');
    expect(events[0].data).toEqual({
      entry: { id: 'e1', path: 'LICENSE', oldPath: null, operation: 'create', beforeHash: null, afterHash: 'h', binary: false, decisionId: 'd1', invocationId: null, insertions: 3, deletions: 0 },
    });
    db.close();
  });

  it('turns the command lines stored before migration 7 into next steps: error records, their events and plans', async () => {
    const file = fresh();
    const old = openDatabase(file, MIGRATIONS.slice(0, 6));
    const record = (id: string, command: string | null) =>
      old.exec(`INSERT INTO error_records (id, plan_id, phase, decision_id, attempt, category, retriable, recovery_action, message, stack, hint, command, outcome, created_at)
        VALUES ('${id}', 'P1', 'execute', NULL, 1, 'tool', 0, 'retry', 'failed', NULL, 'Fix it', ${command === null ? 'NULL' : `'${command}'`}, 'gave_up', '2026-01-01T00:00:0${id.length}.000Z')`);
    record('e1', 'agents plan retry P1');
    record('e22', 'agents plan profile P1 trusted');
    record('e333', 'agents plan edit-step P1 --step N --file step.yaml');
    record('e4444', null);
    old.exec(`INSERT INTO events (plan_id, seq, ts, type, data) VALUES ('P1', 1, 't', 'error_recorded',
      json_object('id', 'e1', 'planId', 'P1', 'phase', 'execute', 'decisionId', NULL, 'attempt', 1, 'category', 'tool', 'retriable', json('false'),
        'recoveryAction', 'retry', 'message', 'failed', 'hint', 'Fix it', 'command', 'agents plan correct P1 --note "what to do differently"', 'outcome', 'gave_up', 'createdAt', '2026-01-01T00:00:00.000Z'))`);
    const history = [{ hint: 'Read it', recoveryCommand: 'agents plan errors P1' }, { category: 'transient' }];
    // As the version of the time stored it: the repository of today prepares columns added since.
    const stored = makePlan({ id: 'P1', errorDetails: { hint: 'Fix it', recoveryCommand: 'agents plan retry P1', history } });
    old
      .prepare('INSERT INTO plans (id, name, phase, processing_state, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(stored.id, stored.name, stored.phase, stored.processingState, stored.createdAt, stored.updatedAt, JSON.stringify(stored));
    old.close();

    const db = openDatabase(file);
    const next = (action: string, args: Record<string, unknown> = {}, message = 'Fix it') => ({ action, args, message });
    expect((await new SqliteErrorLog(db).listForPlan('P1')).map((r) => r.next)).toEqual([next('retry'), next('set_profile', { profile: 'trusted' }), next('edit_step'), null]);
    expect((await new SqliteEventLog(db).list('P1'))[0].data).toMatchObject({ next: next('correct') });
    expect((await new SqliteEventLog(db).list('P1'))[0].data).not.toHaveProperty('command');
    expect((await new SqlitePlanRepository(db).get('P1'))?.errorDetails).toEqual({ hint: 'Fix it', next: next('retry'), history: [{ hint: 'Read it', next: next('show_errors', {}, 'Read it') }, { category: 'transient' }] });
    expect(db.prepare("SELECT count(*) AS n FROM pragma_table_info('error_records') WHERE name = 'command'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('rolls a failing migration back and leaves the version where it was', () => {
    const file = fresh();
    openDatabase(file).close();
    const broken = [...MIGRATIONS, 'CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;'];
    expect(() => openDatabase(file, broken)).toThrow();
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a database written by a newer build', () => {
    const file = fresh();
    const db = openDatabase(file);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this build supports/);
  });

  it('opens an in-memory database for tests that need no file', async () => {
    const db = openDatabase(':memory:');
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const plan = makePlan();
    await new SqlitePlanRepository(db).insert(plan);
    expect(await new SqlitePlanRepository(db).get(plan.id)).toEqual(plan);
    db.close();
  });

  it('opens <dataDir>/agents.db, creating the folder', () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    dirs.push(path.dirname(path.dirname(dir)));
    const db = openDataDirDatabase(dir);
    expect(db.location()).toBe(path.join(dir, DATABASE_FILE));
    expect(existsSync(path.join(dir, DATABASE_FILE))).toBe(true);
    db.close();
  });
});
