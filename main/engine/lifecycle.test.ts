import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../shared/domain';
import { PlanError, ValidationError } from '../../shared/errors';
import { canTransition, mergeErrorDetails, type PlanLifecycleService } from './lifecycle';
import { inMemoryLifecycle } from './test-support/in-memory-stores';

const newService = () => inMemoryLifecycle();
const create = (service: PlanLifecycleService) =>
  service.createPlan({ name: 'p', definitionOfDone: '- a', automationProfile: resolveProfile('trusted') });

describe('PlanLifecycleService', () => {
  it('creates plans queued in strategize and emits plan_created with seq 1', () => {
    const service = newService();
    const plan = create(service);
    expect(plan).toMatchObject({ phase: 'strategize', processingState: 'queued', errorDetails: {}, sandboxRefs: [] });
    expect(service.events.log.list(plan.id).map((e) => [e.seq, e.type])).toEqual([[1, 'plan_created']]);
  });

  it('walks the phases strategize -> execute -> apply -> complete', () => {
    const service = newService();
    const { id } = create(service);
    for (const phase of ['strategize', 'execute', 'apply'] as const) {
      service.beginPhase(id, phase);
      service.completePhase(id);
    }
    expect(service.getPlan(id)).toMatchObject({ phase: 'apply', processingState: 'complete' });
  });

  it('refuses transitions the state machine does not allow', () => {
    const service = newService();
    const { id } = create(service);
    expect(() => service.transition(id, 'complete')).toThrow(PlanError);
    service.cancel(id);
    expect(() => service.transition(id, 'processing')).toThrow(/is Discarded; it cannot become Running/);
    expect(canTransition('errored', 'queued')).toBe(true);
    expect(canTransition('complete', 'queued')).toBe(false);
  });

  it('refuses to begin a phase the plan is not in', () => {
    const service = newService();
    const { id } = create(service);
    expect(() => service.beginPhase(id, 'execute')).toThrow(/is Ready to run in phase strategize; run needs it in phase execute/);
  });

  it('names planId for an unknown or empty id', () => {
    const service = newService();
    expect(() => service.getPlan('')).toThrow(ValidationError);
    expect(() => service.getPlan('nope')).toThrow(/planId/);
  });

  it('resets only errored plans, staying in the failed phase', () => {
    const service = newService();
    const { id } = create(service);
    expect(() => service.reset(id)).toThrow(/reset needs a plan that is Failed/);
    service.beginPhase(id, 'strategize');
    service.fail(id, 'broke', { exceptionType: 'Error' });
    const reset = service.reset(id);
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
