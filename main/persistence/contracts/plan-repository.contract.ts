import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlanRepository } from '../../engine/ports/plan-repository';
import { type Harness, type HarnessFactory, iso, makeDecision, makePlan } from '../test-support/fixtures';

/** What every PlanRepository must do; run against the in-memory and the SQLite one. */
export function planRepositoryContract(name: string, factory: HarnessFactory<PlanRepository>): void {
  describe(`PlanRepository contract: ${name}`, () => {
    let harness: Harness<PlanRepository>;
    let repo: PlanRepository;
    beforeEach(async () => {
      harness = await factory();
      repo = harness.subject;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('returns undefined for an unknown id and an empty list when empty', async () => {
      expect(await repo.get('01UNKNOWN')).toBeUndefined();
      expect(await repo.list()).toEqual([]);
    });

    it('reads back exactly what was inserted', async () => {
      const plan = makePlan({
        errorDetails: { exceptionType: 'Boom', history: [{ attempt: 1 }], nested: { a: [1, null, 'x'] } },
        sandboxRefs: ['/tmp/sandbox-1'],
        errorMessage: 'failed once',
      });
      await repo.insert(plan);
      expect(await repo.get(plan.id)).toEqual(plan);
    });

    it('keeps a markdown definition of done and a null project path', async () => {
      const plan = makePlan({ definitionOfDone: '- first\n- second', projectPath: null });
      await repo.insert(plan);
      expect(await repo.get(plan.id)).toEqual(plan);
    });

    it('refuses a second insert with the same id', async () => {
      const plan = makePlan();
      await repo.insert(plan);
      await expect(repo.insert({ ...plan, name: 'other' })).rejects.toThrow(/already exists/);
      expect((await repo.get(plan.id))?.name).toBe(plan.name);
    });

    it('hands out copies: mutating an input or a result changes nothing stored', async () => {
      const plan = makePlan();
      await repo.insert(plan);
      plan.name = 'mutated input';
      plan.sandboxRefs.push('/mutated');
      const read = await repo.get(plan.id);
      expect(read?.name).toBe('add-license');
      read!.invariants.push('mutated output');
      expect((await repo.get(plan.id))?.invariants).toEqual(['Never touch tests/']);
      expect((await repo.get(plan.id))?.sandboxRefs).toEqual([]);
    });

    it('lists plans newest first', async () => {
      const a = makePlan({ name: 'a', createdAt: iso(1000) });
      const b = makePlan({ name: 'b', createdAt: iso(3000) });
      const c = makePlan({ name: 'c', createdAt: iso(2000) });
      for (const plan of [a, b, c]) await repo.insert(plan);
      expect((await repo.list()).map((p) => p.name)).toEqual(['b', 'c', 'a']);
    });

    it('counts a plan\'s steps by status without reading them, and only its steps', async () => {
      const plan = makePlan();
      await repo.insert(plan);
      const other = makePlan();
      await repo.insert(other);
      expect(await repo.stepCounts(plan.id)).toEqual({ total: 0, done: 0, failedOrRunning: 0 });
      await repo.saveDecisions([
        makeDecision(plan.id, { id: 'root', parentId: null, type: 'prompt_definition' }),
        makeDecision(plan.id, { id: 's1', parentId: 'root', type: 'strategy_choice', status: 'done' }),
        makeDecision(plan.id, { id: 's2', parentId: 'root', type: 'strategy_choice', status: 'failed' }),
        makeDecision(plan.id, { id: 's3', parentId: 'root', type: 'strategy_choice', status: 'running' }),
        makeDecision(plan.id, { id: 's4', parentId: 'root', type: 'strategy_choice', status: 'pending' }),
        makeDecision(plan.id, { id: 'e1', parentId: 's2', type: 'error_recovery', status: 'failed' }),
        makeDecision(other.id, { id: 'o1', parentId: null, type: 'strategy_choice', status: 'done' }),
      ]);
      expect(await repo.stepCounts(plan.id)).toEqual({ total: 4, done: 1, failedOrRunning: 2 });
    });

    it('lists the plans in given processing states, newest first', async () => {
      const a = makePlan({ name: 'a', createdAt: iso(1000), processingState: 'processing' });
      const b = makePlan({ name: 'b', createdAt: iso(3000), processingState: 'paused' });
      const c = makePlan({ name: 'c', createdAt: iso(2000), processingState: 'complete' });
      const d = makePlan({ name: 'd', createdAt: iso(4000) });
      for (const plan of [a, b, c, d]) await repo.insert(plan);
      expect((await repo.listInStates(['processing', 'paused'])).map((p) => p.name)).toEqual(['b', 'a']);
      expect((await repo.listInStates([d.processingState])).map((p) => p.name)).toEqual(['d']);
      expect(await repo.listInStates([])).toEqual([]);
    });

    it('updates by merging the patch, keeping id and createdAt and moving updatedAt', async () => {
      const plan = makePlan();
      await repo.insert(plan);
      const updated = await repo.update(plan.id, {
        phase: 'execute',
        processingState: 'processing',
        changesetId: 'CS1',
        errorDetails: { toolCallCount: 2 },
      });
      expect(updated).toMatchObject({ id: plan.id, createdAt: plan.createdAt, phase: 'execute', processingState: 'processing', changesetId: 'CS1' });
      expect(updated.name).toBe(plan.name);
      expect(updated.errorDetails).toEqual({ toolCallCount: 2 });
      expect(updated.updatedAt > plan.updatedAt).toBe(true);
      expect(await repo.get(plan.id)).toEqual(updated);
      expect((await repo.list())[0]).toEqual(updated);
    });

    it('throws when updating an unknown plan', async () => {
      await expect(repo.update('01UNKNOWN', { processingState: 'processing' })).rejects.toThrow(/unknown plan/);
    });

    it('lists a plan\'s decisions by order, then id, and no other plan\'s', async () => {
      const plan = makePlan();
      await repo.insert(plan);
      const root = makeDecision(plan.id, { type: 'prompt_definition', order: 0, toolCalls: [], status: 'done' });
      const second = makeDecision(plan.id, { parentId: root.id, order: 2, description: 'second' });
      const first = makeDecision(plan.id, { parentId: root.id, order: 1, description: 'first', toolCalls: [] });
      const elsewhere = makeDecision('01OTHERPLAN', { order: 1 });
      await repo.saveDecisions([second, root, elsewhere, first]);
      expect(await repo.listDecisions(plan.id)).toEqual([root, first, second]);
      expect(await repo.listDecisions('01NOPLAN')).toEqual([]);
    });

    it('replaces decisions by id', async () => {
      const decision = makeDecision('01PLAN');
      await repo.saveDecisions([decision]);
      await repo.saveDecisions([{ ...decision, status: 'failed', updatedAt: iso(5000) }]);
      await repo.saveDecisions([]);
      expect(await repo.listDecisions('01PLAN')).toEqual([{ ...decision, status: 'failed', updatedAt: iso(5000) }]);
    });

    it('saves a status alone, keeping the rest of the decision, and refuses an unknown decision', async () => {
      const decision = makeDecision('01PLAN');
      await repo.saveDecisions([decision]);
      await repo.saveDecisionStatus(decision.id, 'running', iso(7000));
      expect(await repo.listDecisions('01PLAN')).toEqual([{ ...decision, status: 'running', updatedAt: iso(7000) }]);
      await expect(repo.saveDecisionStatus('01NODECISION', 'done', iso(8000))).rejects.toThrow(/unknown decision/);
    });

    it("keeps a step's sub-tasks: saved alone, replaced, carried by a whole save, cleared with null; an unknown decision is refused", async () => {
      const decision = makeDecision('01PLAN');
      await repo.saveDecisions([decision]);
      const first = [{ content: 'Read the project', status: 'completed' as const, priority: 'high' as const }, { content: 'Write NOTES.md', status: 'in_progress' as const, priority: 'medium' as const }];
      await repo.saveDecisionSubtasks(decision.id, first);
      expect(await repo.listDecisions('01PLAN')).toEqual([{ ...decision, subtasks: first }]);
      const done = first.map((s) => ({ ...s, status: 'completed' as const }));
      await repo.saveDecisionSubtasks(decision.id, done);
      await repo.saveDecisionStatus(decision.id, 'done', iso(9000));
      const [saved] = await repo.listDecisions('01PLAN');
      expect(saved).toEqual({ ...decision, status: 'done', updatedAt: iso(9000), subtasks: done });
      // A whole save (a fork's copy, a retry) keeps what the decision carries.
      await repo.saveDecisions([{ ...saved, status: 'pending' }]);
      expect((await repo.listDecisions('01PLAN'))[0].subtasks).toEqual(done);
      await repo.saveDecisionSubtasks(decision.id, null);
      expect(await repo.listDecisions('01PLAN')).toEqual([{ ...decision, status: 'pending', updatedAt: iso(9000) }]);
      await expect(repo.saveDecisionSubtasks('01NODECISION', done)).rejects.toThrow(/unknown decision/);
    });
  });
}
