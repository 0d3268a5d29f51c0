import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../shared/profiles';
import { PlanExecutor } from '../engine/run/plan-executor';
import { InMemoryApprovalStore, InMemoryErrorLog, InMemoryLeaseStore, inMemoryLifecycle } from '../engine/test-support/in-memory-stores';
import { recoverInterruptedPlans } from './leases';

describe('a plan whose process died', () => {
  it('is interrupted in the first step not done when no step was marked running yet', async () => {
    const lifecycle = inMemoryLifecycle();
    const plan = await lifecycle.createPlan({ name: 'died', definitionOfDone: ['Fetch', 'Build the docs'], automationProfile: resolveProfile('trusted') });
    await new PlanExecutor({ lifecycleService: lifecycle }).runStrategize(plan.id);
    const [first, second] = (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice');
    await lifecycle.saveDecisionStatus({ id: first.id, status: 'done', updatedAt: new Date().toISOString() });
    // It had begun execute, and died before the second step's running status was committed.
    await lifecycle.beginPhase(plan.id, 'execute', ['queued']);
    const errors = new InMemoryErrorLog();

    expect(await recoverInterruptedPlans(lifecycle, new InMemoryLeaseStore(), errors, new InMemoryApprovalStore())).toEqual([plan.id]);

    expect(errors.records).toMatchObject([{ category: 'interrupted', decisionId: second.id }]);
    expect(await lifecycle.getPlan(plan.id)).toMatchObject({ processingState: 'errored', errorDetails: { decisionId: second.id } });
    const after = await lifecycle.listDecisions(plan.id);
    expect(after.find((d) => d.id === second.id)?.status).toBe('failed');
    expect(after.filter((d) => d.type === 'error_recovery').map((d) => d.parentId)).toEqual([second.id]);
  });
});
