import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../shared/profiles';
import { PlanExecutionContext } from '../engine/run/execution-context';
import { type PlanLifecycleService } from '../engine/run/lifecycle';
import { PlanExecutor } from '../engine/run/plan-executor';
import { InMemoryChangeSetStore, inMemoryLifecycle, inMemoryToolRunner } from '../engine/test-support/in-memory-stores';
import { RunController } from './run-controller';

/** Waits until the plan reaches `state` by listening to its events, never by sleeping. */
async function until(lifecycle: PlanLifecycleService, planId: string, predicate: () => Promise<boolean>): Promise<void> {
  if (await predicate()) return;
  // Each of the plan's events is a moment the state may have changed; the store is read after it.
  await new Promise<void>((resolve) => {
    const off = lifecycle.events.subscribe((e) => {
      if (e.planId !== planId) return;
      void predicate().then((holds) => {
        if (!holds) return;
        off();
        resolve();
      });
    });
  });
}

async function steppedPlan(options: { step?: boolean; breakpointAt?: number } = {}) {
  const lifecycle = inMemoryLifecycle();
  const plan = await lifecycle.createPlan({ name: 's', definitionOfDone: '- one\n- two\n- three', automationProfile: resolveProfile('trusted') });
  const executor = new PlanExecutor({
    lifecycleService: lifecycle,
    toolRunner: inMemoryToolRunner(),
    executionContext: new PlanExecutionContext({ planId: plan.id, changesetStore: new InMemoryChangeSetStore() }),
  });
  await executor.runStrategize(plan.id);
  const steps = (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice');
  const breakpoints = options.breakpointAt !== undefined ? [steps[options.breakpointAt].id] : [];
  const controller = new RunController(plan.id, lifecycle, { step: options.step, breakpoints });
  const statuses = async () => (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice').map((d) => d.status);
  const state = async () => (await lifecycle.getPlan(plan.id)).processingState;
  const done = executor.runExecute(plan.id, { beforeDecision: controller.beforeDecision });
  return { lifecycle, plan, controller, statuses, state, done, paused: async () => await until(lifecycle, plan.id, async () => await state() === 'paused') };
}

describe('RunController', () => {
  it('in step mode pauses before each decision and runs exactly one per step', async () => {
    const run = await steppedPlan({ step: true });
    await run.paused();
    expect(await run.statuses()).toEqual(['pending', 'pending', 'pending']);
    run.controller.step();
    await until(run.lifecycle, run.plan.id, async () => (await run.statuses())[0] === 'done' && await run.state() === 'paused');
    expect(await run.statuses()).toEqual(['done', 'pending', 'pending']);
    run.controller.continue();
    await run.done;
    expect(await run.statuses()).toEqual(['done', 'done', 'done']);
    expect(await run.state()).toBe('queued');
    const pauses = (await run.lifecycle.events.log.list(run.plan.id)).filter((e) => e.type === 'paused');
    expect(pauses.map((e) => e.data.reason)).toEqual(['step', 'step']);
  });

  it('continues to a breakpoint and stops there', async () => {
    const run = await steppedPlan({ breakpointAt: 2 });
    await run.paused();
    expect(await run.statuses()).toEqual(['done', 'done', 'pending']);
    run.controller.continue();
    await run.done;
    expect(await run.statuses()).toEqual(['done', 'done', 'done']);
  });

  it('pause while running stops before the next decision; pausing when paused does nothing', async () => {
    const run = await steppedPlan({ step: true });
    await run.paused();
    run.controller.continue();
    run.controller.pause();
    await until(run.lifecycle, run.plan.id, async () => (await run.statuses())[0] === 'done' && await run.state() === 'paused');
    expect(await run.statuses()).toEqual(['done', 'pending', 'pending']);
    run.controller.pause();
    run.controller.continue();
    await run.done;
    expect(await run.statuses()).toEqual(['done', 'done', 'done']);
  });
});
