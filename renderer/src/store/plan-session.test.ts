import { describe, expect, it } from 'vitest';
import { FakeBridge, makePlan, settle } from '../test-support/fake-bridge';
import { PlanSession } from './plan-session';

describe('a plan session', () => {
  it('answers its requests while open; once closed, neither an answer nor a failure comes, and its teardowns have run', async () => {
    const fake = new FakeBridge();
    fake.plan = makePlan({ name: 'open' });
    const session = new PlanSession('P1', fake.asBridge());
    expect((await session.bridge['plans.get']({ planId: 'P1' })).plan.name).toBe('open');

    const torn: string[] = [];
    session.onClose(() => torn.push('subscription'));
    const outcomes: string[] = [];
    void session.bridge['plans.get']({ planId: 'P1' }).then(() => outcomes.push('answered'));
    fake.fail('plans.errors', 'late failure');
    void session.bridge['plans.errors']({ planId: 'P1' }).catch(() => outcomes.push('failed'));
    session.close();
    await settle();
    expect(outcomes).toEqual([]);
    expect(torn).toEqual(['subscription']);
    expect(session.signal.aborted).toBe(true);
    session.onClose(() => torn.push('late'));
    expect(torn).toEqual(['subscription', 'late']);
  });

  it('coalesces a refresh per key, and runs none once closed', async () => {
    const session = new PlanSession('P1', new FakeBridge().asBridge());
    let runs = 0;
    const refresh = () => session.task('plan', async () => void runs++)();
    refresh();
    refresh();
    refresh();
    await settle();
    expect(runs).toBe(2);
    session.close();
    refresh();
    await settle();
    expect(runs).toBe(2);
  });
});
