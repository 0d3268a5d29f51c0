import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxExecutorFactory } from '../executor-factory';
import { planApplying } from './applying';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('applying and discarding', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const ranPlan = async () => {
    const plan = await h.createPlan({ steps: 2 });
    await planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass).run(plan.id);
    return { plan, applying: planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying) };
  };

  it('applies one file, says what is left, and completes the plan with the rest', async () => {
    h = useCaseHarness();
    const { plan, applying } = await ranPlan();
    expect(await applying.apply(plan.id, { paths: ['out/1.txt'] })).toMatchObject({ applied: ['out/1.txt'], skipped: ['out/2.txt'], remaining: ['out/2.txt'], complete: false });
    expect(readFileSync(path.join(h.project, 'out/1.txt'), 'utf8')).toBe('1');
    expect(await applying.apply(plan.id)).toMatchObject({ applied: ['out/2.txt'], remaining: [], complete: true });
    expect((await h.ctx.get(plan.id)).processingState).toBe('complete');
    await expect(applying.discard(plan.id)).rejects.toThrow(/already/);
  });

  it('discarding the rest of a partly applied plan finishes the apply and removes the sandbox', async () => {
    h = useCaseHarness();
    const { plan, applying } = await ranPlan();
    await applying.apply(plan.id, { paths: ['out/2.txt'] });
    const sandbox = (await h.ctx.get(plan.id)).sandboxRefs[0]!;
    const done = await applying.discard(plan.id);
    expect(done.processingState).toBe('complete');
    expect(done.errorDetails).toMatchObject({ remaining: 0, discarded: 1 });
    expect(existsSync(sandbox)).toBe(false);
    expect(existsSync(path.join(h.project, 'out/1.txt'))).toBe(false);
  });
});
