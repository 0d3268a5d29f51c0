import { describe, expect, it } from 'vitest';
import type { Phase, ProcessingState } from '../../../shared/domain';
import { allowedActions, type PlanAction } from './plan-actions';

const enabled = (phase: Phase, processingState: ProcessingState): PlanAction[] =>
  Object.entries(allowedActions({ phase, processingState }))
    .filter(([, on]) => on)
    .map(([action]) => action as PlanAction);

describe('the plan controls', () => {
  it('offer Run and Step (start in step mode) on a queued plan before apply', () => {
    expect(enabled('strategize', 'queued')).toEqual(['run', 'step', 'discard']);
    expect(enabled('execute', 'queued')).toEqual(['run', 'step', 'discard']);
  });

  it('offer Step, Continue and Pause while processing, and no Discard', () => {
    expect(enabled('execute', 'processing')).toEqual(['step', 'continue', 'pause']);
  });

  it('offer Step and Continue while paused', () => {
    expect(enabled('execute', 'paused')).toEqual(['step', 'continue', 'discard']);
  });

  it('offer Retry and Reset on an errored plan', () => {
    expect(enabled('execute', 'errored')).toEqual(['retry', 'reset', 'discard']);
  });

  it('offer Apply when the plan waits in the apply phase, or failed to apply (but not Retry)', () => {
    expect(enabled('apply', 'queued')).toEqual(['apply', 'discard']);
    expect(enabled('apply', 'errored')).toEqual(['reset', 'apply', 'discard']);
  });

  it('offer no Apply to a plan without a project directory', () => {
    expect(allowedActions({ phase: 'apply', processingState: 'queued', projectPath: null }).apply).toBe(false);
    expect(allowedActions({ phase: 'apply', processingState: 'queued', projectPath: '/p' }).apply).toBe(true);
  });

  it('offer nothing on a finished plan', () => {
    expect(enabled('apply', 'complete')).toEqual([]);
    expect(enabled('execute', 'cancelled')).toEqual([]);
  });
});
