import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PlanError } from '../../../shared/errors';
import type { ExecutorFactory } from '../run-vocabulary';
import { sandboxExecutorFactory } from '../executor-factory';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('running plans', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('builds each run through the executor factory it is given, and ends the run at apply', async () => {
    h = useCaseHarness();
    const real = sandboxExecutorFactory(h.ctx, h.verifying.checkStep);
    const built: string[] = [];
    const counting: ExecutorFactory = (plan, options) => {
      built.push(plan.id);
      return real(plan, options);
    };
    const running = planRunning(h.ctx, h.runs, counting, h.verifying.verifyPass);
    const plan = await h.createPlan({ steps: 2 });
    // The run holds the plan once its checks (read from the store) have passed.
    let started = () => {};
    const holding = new Promise<void>((resolve) => (started = resolve));
    const run = running.run(plan.id, { onStarted: started });
    await holding;
    expect(running.isRunning(plan.id)).toBe(true);
    await expect(running.run(plan.id)).rejects.toThrow(PlanError);
    const done = await run;
    expect(built).toEqual([plan.id]);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(existsSync(done.sandboxRefs[0]!)).toBe(true);
    expect(running.isRunning(plan.id)).toBe(false);
    expect(await h.ctx.stores.leases.get(plan.id)).toBeUndefined();
  });

  it('records a failure to build the executor as the plan error every client sees, and frees the plan', async () => {
    h = useCaseHarness();
    const running = planRunning(h.ctx, h.runs, () => Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })), h.verifying.verifyPass);
    const plan = await h.createPlan();
    const failed = await running.run(plan.id);
    expect(failed).toMatchObject({ processingState: 'errored', errorMessage: 'no space left on device' });
    expect(await h.ctx.stores.errors.listForPlan(plan.id)).toHaveLength(1);
    expect(await h.ctx.stores.leases.get(plan.id)).toBeUndefined();
    expect(() => running.controller(plan.id)).toThrow(/not running in this process/);
    await expect(running.run(plan.id)).rejects.toThrow(`plan ${plan.id} is Failed; run needs a plan that is Ready to run; retry it to go on from the failed step`);
  });
});
