import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import { sandboxExecutorFactory } from '../executor-factory';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('reading plans', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('lists failed plans first, with their progress, and offers recovery hints only for an errored plan', async () => {
    h = useCaseHarness();
    const reading = planReading(h.ctx);
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    // The failed plan is the older one: it comes first because it needs the operator, not by age.
    const broken = await h.createPlan({ steps: 3, failAt: 2 });
    const fine = await h.createPlan({ steps: 2 });
    expect((await reading.errors(fine.id)).recoveryHints).toEqual([]);
    await running.run(broken.id);
    const items = await reading.listItems();
    expect(items.map((p) => [p.id, p.needsAttention, p.progress])).toEqual([
      [broken.id, true, { done: 1, total: 3 }],
      [fine.id, false, { done: 0, total: 0 }],
    ]);
    expect((await reading.errors(broken.id)).recoveryHints.length).toBeGreaterThan(0);
    expect((await reading.tree(broken.id))?.children.map((d) => d.status)).toEqual(['done', 'failed', 'pending']);
  });

  it('reviews what a run changed, one row per file, and names a path the plan does not change', async () => {
    h = useCaseHarness();
    const reading = planReading(h.ctx);
    const plan = await h.createPlan({ steps: 2 });
    expect(await reading.review(plan.id)).toEqual({ changesetId: null, files: [] });
    await planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass).run(plan.id);
    expect((await reading.review(plan.id)).files.map((f) => [f.path, f.state, f.steps.map((s) => s.description)])).toEqual([
      ['out/1.txt', 'remaining', ['Step 1']],
      ['out/2.txt', 'remaining', ['Step 2']],
    ]);
    expect((await reading.reviewDiff(plan.id, 'out/2.txt')).hunks?.[0]?.rows[0]).toEqual({ kind: 'add', text: '2', oldLine: null, newLine: 1 });
    await expect(reading.reviewDiff(plan.id, 'nope.txt')).rejects.toThrow(ValidationError);
  });
});
