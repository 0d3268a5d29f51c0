import { planCheckpoints } from './checkpoints';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsInOrder } from '../../../shared/decision-tree';
import { PlanError } from '../../../shared/errors';
import { sandboxExecutorFactory } from '../executor-factory';
import { planYaml } from '../test-support';
import { planFixing } from './fixing';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('fixing a failed plan in place', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const failedRun = async () => {
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const fixing = planFixing(h.ctx, h.runs, running.run, h.verifying, planCheckpoints(h.ctx, h.runs));
    const plan = await h.createPlan({ steps: 3, failAt: 2 });
    await running.run(plan.id);
    return { plan, fixing, steps: async () => stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id)).map((d) => [d.description, d.status]) };
  };

  it('skips the failed step, and a retry runs on from the next one to apply', async () => {
    h = useCaseHarness();
    const { plan, fixing, steps } = await failedRun();
    expect((await fixing.skip(plan.id, { by: 'ada' })).processingState).toBe('queued');
    await expect(fixing.retry(plan.id)).rejects.toThrow(/retry/);
    expect(await planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass).run(plan.id)).toMatchObject({ phase: 'apply' });
    expect(await steps()).toEqual([
      ['Step 1', 'done'],
      ['Step 2 edits a heading that is not there', 'skipped'],
      ['Step 3', 'done'],
    ]);
  });

  it('replans from a file: the steps not done are skipped and the file’s steps follow them', async () => {
    h = useCaseHarness();
    const { plan, fixing, steps } = await failedRun();
    const file = path.join(h.root, 'replan.yaml');
    writeFileSync(file, planYaml(h.project, { name: 'fixed', steps: 1 }));
    const replanned = await fixing.replan(plan.id, { by: 'ada', file });
    expect(replanned.processingState).toBe('queued');
    expect(await steps()).toEqual([
      ['Step 1', 'done'],
      ['Step 2 edits a heading that is not there', 'skipped'],
      ['Step 3', 'skipped'],
      ['Step 1', 'pending'],
    ]);
    expect((await h.ctx.lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'error_recovery').at(-1)?.description).toBe('Replanned: 2 steps replaced by 1 from fixed');
  });

  it("edit-step takes the step file's check, and a file without one leaves the step without a check", async () => {
    h = useCaseHarness();
    const { plan, fixing } = await failedRun();
    const failed = async () => stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id))[1];
    const file = path.join(h.root, 'step.yaml');
    writeFileSync(file, 'step: Write the notes\ncheck: test -f NOTES.md\ntools:\n  - tool: file.write\n    args: { path: NOTES.md, content: hi }\n');
    await fixing.editStep(plan.id, { by: 'ada', step: 2, file });
    expect((await failed()).check).toMatchObject({ run: 'test -f NOTES.md' });
    writeFileSync(file, 'step: Write the notes\ntools:\n  - tool: file.write\n    args: { path: NOTES.md, content: hi }\n');
    await fixing.editStep(plan.id, { by: 'ada', step: 2, file });
    expect((await failed()).check ?? null).toBeNull();
  });

    it('refuses to change a plan that is running', async () => {
    h = useCaseHarness();
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const plan = await h.createPlan();
    let started = () => {};
    const holding = new Promise<void>((resolve) => (started = resolve));
    const run = running.run(plan.id, { onStarted: started });
    await holding;
    await expect(planFixing(h.ctx, h.runs, running.run, h.verifying, planCheckpoints(h.ctx, h.runs)).setProfile(plan.id, { by: 'ada', profile: 'manual' })).rejects.toThrow(PlanError);
    await run;
  });
});
