import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from './database';
import { SqlitePlanRepository } from './plan-repository';
import { iso, makeDecision, makePlan, tempDatabase } from './test-support/fixtures';

describe('SqlitePlanRepository', () => {
  let temp: ReturnType<typeof tempDatabase>;
  let repo: SqlitePlanRepository;
  let other: SqliteDatabase;
  beforeEach(() => {
    temp = tempDatabase();
    repo = new SqlitePlanRepository(temp.db);
    other = openDatabase(temp.file);
  });
  afterEach(() => {
    other.close();
    temp.dispose();
  });

  it('reads a plan and its decisions written by another connection', async () => {
    const plan = makePlan({ errorDetails: { exceptionType: 'X', history: [{ a: 1 }] } });
    const decision = makeDecision(plan.id);
    await repo.insert(plan);
    await repo.saveDecisions([decision]);
    const reader = new SqlitePlanRepository(other);
    expect(await reader.get(plan.id)).toEqual(plan);
    expect(await reader.listDecisions(plan.id)).toEqual([decision]);
    const updated = await reader.update(plan.id, { processingState: 'processing' });
    expect(await repo.get(plan.id)).toEqual(updated);
  });

  it('validates plans on the way in and on the way out', async () => {
    await expect(repo.insert({ ...makePlan(), phase: 'later' as never })).rejects.toThrow(/phase/);
    const plan = makePlan();
    await repo.insert(plan);
    await expect(repo.update(plan.id, { processingState: 'sleeping' as never })).rejects.toThrow(/processingState/);
    temp.db.prepare("UPDATE plans SET data = json_set(data, '$.phase', 'bogus') WHERE id = ?").run(plan.id);
    await expect(repo.get(plan.id)).rejects.toThrow(/phase/);
  });

  it('treats an undefined patch field as not given, and never changes id or createdAt', async () => {
    const plan = makePlan({ errorMessage: 'kept' });
    await repo.insert(plan);
    const patch = { errorMessage: undefined, id: 'other', createdAt: iso(99) } as unknown as Parameters<SqlitePlanRepository['update']>[1];
    const updated = repo.update(plan.id, patch);
    expect(await updated).toMatchObject({ id: plan.id, createdAt: plan.createdAt, errorMessage: 'kept' });
  });

  it('keeps the indexed columns in step with the document', async () => {
    const plan = makePlan();
    await repo.insert(plan);
    await repo.update(plan.id, { phase: 'execute', processingState: 'errored' });
    expect(temp.db.prepare('SELECT phase, processing_state FROM plans WHERE id = ?').get(plan.id)).toEqual({
      phase: 'execute',
      processing_state: 'errored',
    });
  });

  it('queries by phase and state, newest first, in pages', async () => {
    const plans = Array.from({ length: 6 }, (_, i) =>
      makePlan({ name: `p${i}`, createdAt: iso(i * 1000), processingState: i % 2 === 0 ? 'errored' : 'queued' }),
    );
    for (const plan of plans) await repo.insert(plan);
    expect(await repo.count()).toBe(6);
    expect((await repo.query({ processingState: 'errored' })).map((p) => p.name)).toEqual(['p4', 'p2', 'p0']);
    expect((await repo.query({ limit: 2, offset: 1 })).map((p) => p.name)).toEqual(['p4', 'p3']);
    expect(await repo.query({ phase: 'execute' })).toEqual([]);
    expect(await repo.query()).toHaveLength(6);
  });
});
