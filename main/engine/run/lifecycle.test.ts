import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import { PlanError, ValidationError } from '../../../shared/errors';
import { canTransition, mergeErrorDetails, type PlanLifecycleService } from './lifecycle';
import { inMemoryLifecycle } from '../test-support/in-memory-stores';

const newService = () => inMemoryLifecycle();
const create = (service: PlanLifecycleService) =>
  service.createPlan({ name: 'p', definitionOfDone: '- a', automationProfile: resolveProfile('trusted') });

describe('PlanLifecycleService', () => {
  it('creates plans queued in strategize and emits plan_created with seq 1', async () => {
    const service = newService();
    const plan = await create(service);
    expect(plan).toMatchObject({ phase: 'strategize', processingState: 'queued', errorDetails: {}, sandboxRefs: [] });
    expect((await service.events.log.list(plan.id)).map((e) => [e.seq, e.type])).toEqual([[1, 'plan_created']]);
  });

  it('walks the phases strategize -> execute -> apply -> complete', async () => {
    const service = newService();
    const { id } = await create(service);
    for (const phase of ['strategize', 'execute', 'apply'] as const) {
      await service.beginPhase(id, phase);
      await service.completePhase(id);
    }
    expect(await service.getPlan(id)).toMatchObject({ phase: 'apply', processingState: 'complete' });
  });

  it('refuses transitions the state machine does not allow', async () => {
    const service = newService();
    const { id } = await create(service);
    await expect(service.transition(id, 'complete')).rejects.toThrow(PlanError);
    await service.cancel(id);
    await expect(service.transition(id, 'processing')).rejects.toThrow(/is Discarded; it cannot become Running/);
    expect(canTransition('errored', 'queued')).toBe(true);
    expect(canTransition('complete', 'queued')).toBe(false);
  });

  it('refuses to begin a phase the plan is not in', async () => {
    const service = newService();
    const { id } = await create(service);
    await expect(service.beginPhase(id, 'execute')).rejects.toThrow(/is Ready to run in phase strategize; run needs it in phase execute/);
  });

  it('names planId for an unknown or empty id', async () => {
    const service = newService();
    await expect(service.getPlan('')).rejects.toThrow(ValidationError);
    await expect(service.getPlan('nope')).rejects.toThrow(/planId/);
  });

  it('resets only errored plans, staying in the failed phase', async () => {
    const service = newService();
    const { id } = await create(service);
    await expect(service.reset(id)).rejects.toThrow(/reset needs a plan that is Failed/);
    await service.beginPhase(id, 'strategize');
    await service.fail(id, 'broke', { exceptionType: 'Error' });
    const reset = await service.reset(id);
    expect(reset).toMatchObject({ phase: 'strategize', processingState: 'queued', errorMessage: null });
    // The cleared error is not lost: it moves to the history.
    expect(reset.errorDetails).toEqual({ history: [{ exceptionType: 'Error' }] });
  });
});

describe('mergeErrorDetails', () => {
  it('adds new keys and keeps the earlier ones', () => {
    expect(mergeErrorDetails({ ticket: 'OPS-1' }, { exceptionType: 'Error' })).toEqual({ ticket: 'OPS-1', exceptionType: 'Error' });
  });

  it('keeps an earlier failure in history instead of overwriting it', () => {
    const first = mergeErrorDetails({}, { exceptionType: 'TypeError', traceback: 'a' });
    const second = mergeErrorDetails(first, { exceptionType: 'RangeError', traceback: 'b' });
    expect(second).toMatchObject({ exceptionType: 'RangeError', traceback: 'b', history: [{ exceptionType: 'TypeError', traceback: 'a' }] });
    const third = mergeErrorDetails(second, { exceptionType: 'Error', traceback: 'c' });
    expect(third.history).toHaveLength(2);
  });
});
