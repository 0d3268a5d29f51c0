import { afterEach, describe, expect, it } from 'vitest';
import { planActions } from './actions';
import { useCaseHarness } from './test-support';

describe('the action list', () => {
  let h: ReturnType<typeof useCaseHarness> | undefined;
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it("waits for this process's hold on a stopped plan to end, so the list asked for on the last event is not 'already running'", async () => {
    h = useCaseHarness();
    const plan = await h.createPlan();
    const actions = planActions(h.ctx, h.runs);
    let end = () => {};
    const held = h.runs.hold(plan.id, () => new Promise<void>((resolve) => (end = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const asked = actions.actions(plan.id);
    setTimeout(() => end(), 50);
    expect((await asked).find((a) => a.id === 'run')).toEqual({ id: 'run', allowed: true, reason: null });
    await held;
  });
});
