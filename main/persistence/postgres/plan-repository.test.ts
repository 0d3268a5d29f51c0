import { describe, expect, it } from 'vitest';
import { iso, makeDecision, makePlan } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// The PlanRepository contract (../contracts/plan-repository.contract.ts), awaited, against PostgreSQL.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgPlanRepository'), () => {
  const pg = usePostgresStores();
  const repo = () => pg.stores().plans;

  it('returns undefined for an unknown id and an empty list when empty', async () => {
    expect(await repo().get('01UNKNOWN')).toBeUndefined();
    expect(await repo().list()).toEqual([]);
  });

  it('reads back exactly what was inserted, a markdown definition of done and a null project path too', async () => {
    const plan = makePlan({
      errorDetails: { exceptionType: 'Boom', history: [{ attempt: 1 }], nested: { a: [1, null, 'x'] } },
      sandboxRefs: ['/tmp/sandbox-1'],
      errorMessage: 'failed once',
    });
    const markdown = makePlan({ definitionOfDone: '- first\n- second', projectPath: null });
    await repo().insert(plan);
    await repo().insert(markdown);
    expect(await repo().get(plan.id)).toEqual(plan);
    expect(await repo().get(markdown.id)).toEqual(markdown);
  });

  it('refuses a second insert with the same id', async () => {
    const plan = makePlan();
    await repo().insert(plan);
    await expect(repo().insert({ ...plan, name: 'other' })).rejects.toThrow(/already exists/);
    expect((await repo().get(plan.id))?.name).toBe(plan.name);
  });

  it('hands out copies: mutating an input or a result changes nothing stored', async () => {
    const plan = makePlan();
    await repo().insert(plan);
    plan.name = 'mutated input';
    const read = await repo().get(plan.id);
    expect(read?.name).toBe('add-license');
    read!.invariants.push('mutated output');
    expect((await repo().get(plan.id))?.invariants).toEqual(['Never touch tests/']);
  });

  it('lists plans newest first, and those in given processing states', async () => {
    const a = makePlan({ name: 'a', createdAt: iso(1000), processingState: 'processing' });
    const b = makePlan({ name: 'b', createdAt: iso(3000), processingState: 'paused' });
    const c = makePlan({ name: 'c', createdAt: iso(2000), processingState: 'complete' });
    const d = makePlan({ name: 'd', createdAt: iso(4000) });
    for (const plan of [a, b, c, d]) await repo().insert(plan);
    expect((await repo().list()).map((p) => p.name)).toEqual(['d', 'b', 'c', 'a']);
    expect((await repo().listInStates(['processing', 'paused'])).map((p) => p.name)).toEqual(['b', 'a']);
    expect((await repo().listInStates([d.processingState])).map((p) => p.name)).toEqual(['d']);
    expect(await repo().listInStates([])).toEqual([]);
    expect((await repo().query({ processingState: 'paused' })).map((p) => p.name)).toEqual(['b']);
    expect((await repo().query({ offset: 1, limit: 2 })).map((p) => p.name)).toEqual(['b', 'c']);
    expect(await repo().count()).toBe(4);
  });

  it("counts a plan's steps by status, and only its steps", async () => {
    const plan = makePlan();
    const other = makePlan();
    await repo().insert(plan);
    await repo().insert(other);
    expect(await repo().stepCounts(plan.id)).toEqual({ total: 0, done: 0, failedOrRunning: 0 });
    await repo().saveDecisions([
      makeDecision(plan.id, { id: 'root', parentId: null, type: 'prompt_definition' }),
      makeDecision(plan.id, { id: 's1', parentId: 'root', type: 'strategy_choice', status: 'done' }),
      makeDecision(plan.id, { id: 's2', parentId: 'root', type: 'strategy_choice', status: 'failed' }),
      makeDecision(plan.id, { id: 's3', parentId: 'root', type: 'strategy_choice', status: 'running' }),
      makeDecision(plan.id, { id: 's4', parentId: 'root', type: 'strategy_choice', status: 'pending' }),
      makeDecision(plan.id, { id: 'e1', parentId: 's2', type: 'error_recovery', status: 'failed' }),
      makeDecision(other.id, { id: 'o1', parentId: null, type: 'strategy_choice', status: 'done' }),
    ]);
    expect(await repo().stepCounts(plan.id)).toEqual({ total: 4, done: 1, failedOrRunning: 2 });
  });

  it('updates by merging the patch, keeping id and createdAt and moving updatedAt; an unknown plan throws', async () => {
    const plan = makePlan();
    await repo().insert(plan);
    const updated = await repo().update(plan.id, { phase: 'execute', processingState: 'processing', changesetId: 'CS1', errorDetails: { toolCallCount: 2 } });
    expect(updated).toMatchObject({ id: plan.id, createdAt: plan.createdAt, phase: 'execute', processingState: 'processing', changesetId: 'CS1', name: plan.name });
    expect(updated.errorDetails).toEqual({ toolCallCount: 2 });
    expect(updated.updatedAt > plan.updatedAt).toBe(true);
    expect(await repo().get(plan.id)).toEqual(updated);
    await expect(repo().update('01UNKNOWN', { processingState: 'processing' })).rejects.toThrow(/unknown plan/);
  });

  it('loses no patch when two connections update one plan at once', async () => {
    const plan = makePlan();
    await repo().insert(plan);
    // Each update reads, merges and writes under the row's lock; a lost update would drop one field.
    await Promise.all([repo().update(plan.id, { changesetId: 'CS1' }), repo().update(plan.id, { errorMessage: 'seen' })]);
    expect(await repo().get(plan.id)).toMatchObject({ changesetId: 'CS1', errorMessage: 'seen' });
  });

  it("lists a plan's decisions by order, then id; replaces by id; saves a status alone", async () => {
    const plan = makePlan();
    await repo().insert(plan);
    const root = makeDecision(plan.id, { type: 'prompt_definition', order: 0, toolCalls: [], status: 'done' });
    const second = makeDecision(plan.id, { parentId: root.id, order: 2, description: 'second', check: { name: 'tests', run: 'npm test', timeoutSeconds: 60, criteria: [], source: 'plan' } });
    const first = makeDecision(plan.id, { parentId: root.id, order: 1, description: 'first', toolCalls: [] });
    await repo().saveDecisions([second, root, makeDecision('01OTHERPLAN', { order: 1 }), first]);
    expect(await repo().listDecisions(plan.id)).toEqual([root, first, second]);
    expect(await repo().listDecisions('01NOPLAN')).toEqual([]);
    await repo().saveDecisions([{ ...first, status: 'failed', updatedAt: iso(5000) }]);
    await repo().saveDecisions([]);
    await repo().saveDecisionStatus(root.id, 'running', iso(7000));
    expect(await repo().listDecisions(plan.id)).toEqual([{ ...root, status: 'running', updatedAt: iso(7000) }, { ...first, status: 'failed', updatedAt: iso(5000) }, second]);
    await expect(repo().saveDecisionStatus('01NODECISION', 'done', iso(8000))).rejects.toThrow(/unknown decision/);
  });
});
