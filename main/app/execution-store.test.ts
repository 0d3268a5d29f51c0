import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryChangeSetStore } from '../engine/run/in-memory-changeset-store';
import { SqliteChangeSetStore } from '../persistence/changeset-store';
import { planYaml, type TempApp, tempApp } from './test-support';

// PlanExecutionContext falls back to an in-memory changeset store when given none (the seed's
// scenario); the app must never take that path, or a run's changes would vanish with its process.
describe('the changeset store of a run', () => {
  let t: TempApp | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await t?.dispose();
  });

  it('is the SQLite store: a run records its changes in the database, and no in-memory store is made', async () => {
    t = await tempApp();
    const { service } = t.app;
    expect(service.stores.changesets).toBeInstanceOf(SqliteChangeSetStore);
    const fallback = vi.spyOn(InMemoryChangeSetStore.prototype, 'start');
    const recorded = vi.spyOn(service.stores.changesets, 'record');

    const plan = await service.createFromContent({ content: planYaml(t.project, { steps: 2 }) }, t.root);
    const done = await service.run(plan.id);

    expect(done.phase).toBe('apply');
    expect(fallback).not.toHaveBeenCalled();
    expect(recorded).toHaveBeenCalledTimes(2);
    // Another connection to the same file sees the entries.
    const db = new DatabaseSync(path.join(t.app.dataDir, 'agents.db'), { readOnly: true });
    try {
      const row = db.prepare('SELECT count(*) AS n FROM change_entries e JOIN changesets c ON c.id = e.changeset_id WHERE c.plan_id = ?').get(plan.id);
      expect(row).toEqual({ n: 2 });
    } finally {
      db.close();
    }
  });
});
