import { describe, expect, it } from 'vitest';
import { iso, makeDecision, makePlan } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// What the PlanRepository contract (run in ./contracts.test.ts) leaves to PostgreSQL.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgPlanRepository'), () => {
  const pg = usePostgresStores();
  const repo = () => pg.stores().plans;

  it('queries plans by state or page, newest first, and counts them', async () => {
    const a = makePlan({ name: 'a', createdAt: iso(1000), processingState: 'processing' });
    const b = makePlan({ name: 'b', createdAt: iso(3000), processingState: 'paused' });
    const c = makePlan({ name: 'c', createdAt: iso(2000), processingState: 'complete' });
    const d = makePlan({ name: 'd', createdAt: iso(4000) });
    for (const plan of [a, b, c, d]) await repo().insert(plan);
    expect((await repo().query({ processingState: 'paused' })).map((p) => p.name)).toEqual(['b']);
    expect((await repo().query({ offset: 1, limit: 2 })).map((p) => p.name)).toEqual(['b', 'c']);
    expect(await repo().count()).toBe(4);
  });

  it('loses no patch when two connections update one plan at once', async () => {
    const plan = makePlan();
    await repo().insert(plan);
    // Each update reads, merges and writes under the row's lock; a lost update would drop one field.
    await Promise.all([repo().update(plan.id, { changesetId: 'CS1' }), repo().update(plan.id, { errorMessage: 'seen' })]);
    expect(await repo().get(plan.id)).toMatchObject({ changesetId: 'CS1', errorMessage: 'seen' });
  });

  it("keeps a decision's check as it was given", async () => {
    const plan = makePlan();
    await repo().insert(plan);
    const decision = makeDecision(plan.id, { check: { name: 'tests', run: 'npm test', timeoutSeconds: 60, criteria: [], source: 'plan' } });
    await repo().saveDecisions([decision]);
    expect(await repo().listDecisions(plan.id)).toEqual([decision]);
  });
});
