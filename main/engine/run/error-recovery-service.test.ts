import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import { PlanError, ValidationError } from '../../../shared/errors';
import { NextStepSchema } from '../../../shared/action-ids';
import { CATEGORY_POLICIES, ErrorRecoveryService, classifyError, recoveryHints } from './error-recovery-service';
import { EngineError, ToolCallError } from '../errors';
import { PlanExecutor } from './plan-executor';
import { PlanExecutionContext } from './execution-context';
import { InMemoryChangeSetStore, InMemoryErrorLog, InMemoryInvocationLog, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { ToolRegistry, ToolRunner } from './tool-runner';
import { z } from 'zod';


describe('classifyError', () => {
  it('sorts failures into categories', () => {
    expect(classifyError(new EngineError('x', 'transient'))).toBe('transient');
    expect(classifyError(new ValidationError('f', 'bad'))).toBe('validation');
    expect(classifyError(new PlanError('bad'))).toBe('validation');
    expect(classifyError(Object.assign(new Error('busy'), { code: 'EBUSY' }))).toBe('transient');
    expect(classifyError(Object.assign(new Error('no'), { code: 'EACCES' }))).toBe('policy');
    expect(classifyError(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('tool');
    expect(classifyError(new Error('?'))).toBe('internal');
    const invocation = { id: 'i', planId: 'p', decisionId: null, tool: 't', args: {}, ok: false, error: null, startedAt: '', durationMs: 0 };
    expect(classifyError(new ToolCallError(invocation, new EngineError('x', 'policy')))).toBe('policy');
  });

  it('suggests next steps as actions and their arguments, the category\'s own advice first', () => {
    for (const category of Object.keys(CATEGORY_POLICIES) as (keyof typeof CATEGORY_POLICIES)[]) {
      const hints = recoveryHints(category, 2);
      expect(hints.length).toBeGreaterThan(0);
      expect(hints[0].message).toBe(CATEGORY_POLICIES[category].hint);
      for (const hint of hints) expect(NextStepSchema.parse(hint)).toEqual(hint);
    }
    expect(recoveryHints('rejected', 2).map((h) => [h.action, h.args])).toEqual([
      ['skip', { step: 2 }],
      ['edit_step', { step: 2 }],
      ['replan', {}],
    ]);
    expect(recoveryHints('tool')[1]).toEqual({ action: 'skip', args: {}, message: 'Skip the failed step and go on with the next one' });
  });
});

/** A plan whose single step fails transiently `failures` times, then succeeds. */
async function flakyPlan(autoRetryTransient: number, failures: number) {
  const lifecycle = inMemoryLifecycle();
  const log = new InMemoryErrorLog();
  let calls = 0;
  const registry = new ToolRegistry().register({
    name: 'flaky',
    effect: 'write',
    description: 'fails transiently, then succeeds',
    schema: z.object({}),
    run: async () => {
      calls += 1;
      if (calls <= failures) throw new EngineError(`busy (${calls})`, 'transient');
      return 'ok';
    },
  });
  const plan = await lifecycle.createPlan({
    name: 'flaky',
    definitionOfDone: [{ step: 'Try', tools: [{ tool: 'flaky', args: {} }] }],
    automationProfile: { ...resolveProfile('trusted'), autoRetryTransient },
  });
  const delays: number[] = [];
  const executor = new PlanExecutor({
    lifecycleService: lifecycle,
    toolRunner: new ToolRunner(registry, new InMemoryInvocationLog()),
    executionContext: new PlanExecutionContext({ planId: plan.id, changesetStore: new InMemoryChangeSetStore() }),
    errorRecoveryService: new ErrorRecoveryService(log, lifecycle, { baseDelayMs: 100, random: () => 1 }),
    sleep: async (ms) => {
      delays.push(ms);
    },
  });
  await executor.runStrategize(plan.id);
  const outcome = await executor.runExecute(plan.id).catch((e: unknown) => e);
  return { lifecycle, log, plan: await lifecycle.getPlan(plan.id), delays, outcome, calls: () => calls };
}

describe('ErrorRecoveryService with the executor', () => {
  it('retries transient failures with exponential backoff and completes', async () => {
    const { plan, log, delays, lifecycle } = await flakyPlan(3, 2);
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(delays).toEqual([100, 200]);
    expect(log.records.map((r) => [r.attempt, r.category, r.outcome])).toEqual([
      [1, 'transient', 'retried'],
      [2, 'transient', 'retried'],
    ]);
    const recovery = (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'error_recovery');
    const step = (await lifecycle.listDecisions(plan.id)).find((d) => d.type === 'strategy_choice');
    expect(recovery).toHaveLength(2);
    expect(recovery.every((d) => d.parentId === step?.id)).toBe(true);
    const retries = (await lifecycle.events.log.list(plan.id)).filter((e) => e.type === 'retry_scheduled');
    expect(retries.map((e) => [e.data.attempt, e.data.delayMs])).toEqual([
      [2, 100],
      [3, 200],
    ]);
  });

  it('takes the retry limit from the profile: 0 turns automatic retry off', async () => {
    const { plan, log, calls } = await flakyPlan(0, 2);
    expect(plan.processingState).toBe('errored');
    expect(calls()).toBe(1);
    expect(plan.errorDetails).toMatchObject({
      category: 'transient',
      retryCount: 0,
      maxRetries: 0,
      retriable: true,
      recoveryAction: 'retry',
      next: { action: 'retry', args: {}, message: CATEGORY_POLICIES.transient.hint },
      exceptionType: 'ToolCallError',
      mode: 'runtime',
    });
    expect(log.records.map((r) => r.outcome)).toEqual(['gave_up']);
  });

  it('gives up when retries are exhausted', async () => {
    const { plan, log } = await flakyPlan(2, 5);
    expect(plan.processingState).toBe('errored');
    expect(plan.errorDetails).toMatchObject({ retryCount: 2, maxRetries: 2 });
    expect(log.records.map((r) => r.outcome)).toEqual(['retried', 'retried', 'gave_up']);
  });

  it('keeps the backoff within its ceiling, with jitter', () => {
    const lifecycle = inMemoryLifecycle();
    const low = new ErrorRecoveryService(new InMemoryErrorLog(), lifecycle, { baseDelayMs: 1000, maxDelayMs: 5000, random: () => 0 });
    expect([1, 2, 3, 4].map((a) => low.delayFor(a))).toEqual([500, 1000, 2000, 2500]);
  });
});
