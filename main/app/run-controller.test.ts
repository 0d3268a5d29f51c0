import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../shared/domain';
import { PlanExecutionContext } from '../engine/execution-context';
import { type PlanLifecycleService } from '../engine/lifecycle';
import { PlanExecutor } from '../engine/plan-executor';
import { InMemoryChangeSetStore, inMemoryLifecycle, inMemoryToolRunner } from '../engine/test-support/in-memory-stores';
import { RunController } from './run-controller';

/** Waits until the plan reaches `state` by listening to its events, never by sleeping. */
function until(lifecycle: PlanLifecycleService, planId: string, predicate: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (predicate()) return resolve();
    const off = lifecycle.events.subscribe((e) => {
      if (e.planId === planId && predicate()) {
        off();
        resolve();
      }
    });
  });
}

async function steppedPlan(options: { step?: boolean; breakpointAt?: number } = {}) {
  const lifecycle = inMemoryLifecycle();
  const plan = lifecycle.createPlan({ name: 's', definitionOfDone: '- one\n- two\n- three', automationProfile: resolveProfile('trusted') });
  const executor = new PlanExecutor({
    lifecycleService: lifecycle,
    toolRunner: inMemoryToolRunner(),
    executionContext: new PlanExecutionContext({ planId: plan.id, changesetStore: new InMemoryChangeSetStore() }),
  });
  await executor.runStrategize(plan.id);
  const steps = lifecycle.listDecisions(plan.id).filter((d) => d.type === 'strategy_choice');
  const breakpoints = options.breakpointAt !== undefined ? [steps[options.breakpointAt].id] : [];
  const controller = new RunController(plan.id, lifecycle, { step: options.step, breakpoints });
  const statuses = () => lifecycle.listDecisions(plan.id).filter((d) => d.type === 'strategy_choice').map((d) => d.status);
  const state = () => lifecycle.getPlan(plan.id).processingState;
  const done = executor.runExecute(plan.id, { beforeDecision: controller.beforeDecision });
  return { lifecycle, plan, controller, statuses, state, done, paused: () => until(lifecycle, plan.id, () => state() === 'paused') };
}

describe('RunController', () => {
  it('in step mode pauses before each decision and runs exactly one per step', async () => {
    const run = await steppedPlan({ step: true });
    await run.paused();
    expect(run.statuses()).toEqual(['pending', 'pending', 'pending']);
    run.controller.step();
    await until(run.lifecycle, run.plan.id, () => run.statuses()[0] === 'done' && run.state() === 'paused');
    expect(run.statuses()).toEqual(['done', 'pending', 'pending']);
    run.controller.continue();
    await run.done;
    expect(run.statuses()).toEqual(['done', 'done', 'done']);
    expect(run.state()).toBe('queued');
    const pauses = run.lifecycle.events.log.list(run.plan.id).filter((e) => e.type === 'paused');
    expect(pauses.map((e) => e.data.reason)).toEqual(['step', 'step']);
  });

  it('continues to a breakpoint and stops there', async () => {
    const run = await steppedPlan({ breakpointAt: 2 });
    await run.paused();
    expect(run.statuses()).toEqual(['done', 'done', 'pending']);
    run.controller.continue();
    await run.done;
    expect(run.statuses()).toEqual(['done', 'done', 'done']);
  });

  it('pause while running stops before the next decision; pausing when paused does nothing', async () => {
    const run = await steppedPlan({ step: true });
    await run.paused();
    run.controller.continue();
    run.controller.pause();
    await until(run.lifecycle, run.plan.id, () => run.statuses()[0] === 'done' && run.state() === 'paused');
    expect(run.statuses()).toEqual(['done', 'pending', 'pending']);
    run.controller.pause();
    run.controller.continue();
    await run.done;
    expect(run.statuses()).toEqual(['done', 'done', 'done']);
  });
});
