import { describe, expect, it } from 'vitest';
import { bridgeFailure } from '../../../shared/contract';
import { makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { track } from './track';

async function openPlan() {
  const t = testRuntime();
  t.fake.plans = [makeListItem()];
  t.fake.plan = makePlan({ processingState: 'errored' });
  t.state().openPlan('P1');
  await t.settle();
  return t;
}

describe('a tracked request', () => {
  it('sets its flag while on its way, refuses a second meanwhile, and keeps and announces a failure', async () => {
    const t = await openPlan();
    let finish: (() => void) | null = null;
    const first = track(t.store, { busy: 'recovering', error: 'recoveryError' }, 'skip', () => new Promise<void>((resolve) => (finish = resolve)));
    expect(t.state().recovering).toBe('skip');
    let ranSecond = false;
    await track(t.store, { busy: 'recovering', error: 'recoveryError' }, 'change_profile', async () => void (ranSecond = true));
    expect(ranSecond).toBe(false);
    finish!();
    await first;
    expect(t.state().recovering).toBeNull();

    await track(t.store, { busy: 'recovering', error: 'recoveryError' }, 'skip', async () => {
      throw bridgeFailure({ code: 'wrong_state', message: 'plan P1 is Running' });
    }, (error) => `Skip step failed: ${(error as Error).message}`);
    expect(t.state()).toMatchObject({ recovering: null, recoveryError: 'Skip step failed: plan P1 is Running', status: { text: 'Skip step failed: plan P1 is Running' } });
  });

  it('leaves the store alone once its plan is closed: no answer, no error, no flag', async () => {
    const t = await openPlan();
    t.fake.fail('plans.skip', 'refused late');
    const pending = track(t.store, { busy: 'recovering', error: 'recoveryError' }, 'skip', async ({ bridge, planId }) => {
      await bridge['plans.skip']({ planId });
    });
    t.state().openPlan('P2');
    await t.settle();
    expect(t.state()).toMatchObject({ planId: 'P2', recovering: null, recoveryError: null });
    expect(t.state().status.text).not.toContain('refused late');
    void pending;
  });
});
