import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStores } from '../../persistence';
import { sandboxExecutorFactory } from '../executor-factory';
import { planReading } from './reading';
import { planReviewing, reviewFeedbackOf } from './reviewing';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('declined hunks kept with the plan', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const ranPlan = async () => {
    const plan = await h.createPlan({ steps: 2 });
    await planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass).run(plan.id);
    return { plan, reviewing: planReviewing(h.ctx, planReading(h.ctx)) };
  };

  it('records a declined hunk with its lines, reason, who and when, in the database, and restores it', async () => {
    h = useCaseHarness();
    const { plan, reviewing } = await ranPlan();
    await reviewing.rejectHunks(plan.id, { hunks: { 'out/1.txt': [1] }, reason: '  not this file  ', by: 'ana' });
    // Read back through a second connection: it is in SQLite, not in this process.
    const other = openStores(path.join(h.root, 'data'));
    const stored = (await other.plans.get(plan.id))?.rejectedHunks;
    other.close();
    expect(stored).toEqual([{ path: 'out/1.txt', hunk: 1, lines: expect.stringMatching(/^@@ .* @@\n\+1/), key: expect.stringMatching(/^[0-9a-f]{8}\.1$/), reason: 'not this file', by: 'ana', at: expect.any(String) }]);
    expect((await reviewing.restoreHunks(plan.id, { path: 'out/1.txt', hunks: [1] })).rejectedHunks).toEqual([]);
  });

  it('refuses a file or a hunk the review does not have, and records nothing', async () => {
    h = useCaseHarness();
    const { plan, reviewing } = await ranPlan();
    await expect(reviewing.rejectHunks(plan.id, { hunks: { 'out/1.txt': [1], 'out/9.txt': [1] }, by: 'ana' })).rejects.toThrow(/does not change "out\/9\.txt"/);
    await expect(reviewing.rejectHunks(plan.id, { hunks: { 'out/1.txt': [2] }, by: 'ana' })).rejects.toThrow('"out/1.txt" has 1 hunk; there is no hunk 2');
    expect((await h.ctx.get(plan.id)).rejectedHunks ?? []).toEqual([]);
  });

  it('tells the model of the declined hunks and the files the operator edited by hand', async () => {
    h = useCaseHarness();
    const { plan, reviewing } = await ranPlan();
    await reviewing.rejectHunks(plan.id, { hunks: { 'out/2.txt': [1] }, by: 'ana' });
    writeFileSync(path.join((await h.ctx.get(plan.id)).sandboxRefs[0], 'out', '1.txt'), 'by hand');
    await h.ctx.captureHandEdits(await h.ctx.get(plan.id));
    const feedback = await reviewFeedbackOf(h.ctx, plan.id);
    expect(feedback.handEdited).toEqual(['out/1.txt']);
    expect(feedback.rejected.map((r) => `${r.path}:${r.hunk}`)).toEqual(['out/2.txt:1']);
  });
});
