import { afterEach, describe, expect, it, vi } from 'vitest';
import { testRuntime } from '../test-support/runtime';
import { TEAM_POLL_MS, TEAM_SETTLE_MS } from './team-slice';

const status = { queued: 1, queuedPlans: ['P1'], running: 0, workers: [], operator: 'ann', host: 'desk' };

describe('the team line', () => {
  afterEach(() => vi.useRealTimers());

  it('asks every TEAM_POLL_MS in team mode, early after a state change, and not once stopped', async () => {
    vi.useFakeTimers();
    const t = testRuntime();
    t.fake.team = status;
    await t.state().loadTeam();
    expect(t.state().team).toEqual(status);
    expect(t.fake.callsTo('team.status')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(TEAM_POLL_MS);
    expect(t.fake.callsTo('team.status')).toHaveLength(2);
    // Two changes at once ask early once, and the tick already pending is not doubled.
    t.state().teamMayHaveChanged();
    t.state().teamMayHaveChanged();
    await vi.advanceTimersByTimeAsync(TEAM_SETTLE_MS);
    expect(t.fake.callsTo('team.status')).toHaveLength(3);
    t.state().stopTeam();
    await vi.advanceTimersByTimeAsync(TEAM_POLL_MS * 3);
    expect(t.fake.callsTo('team.status')).toHaveLength(3);
  });

  it('over the embedded database, asks once', async () => {
    vi.useFakeTimers();
    const t = testRuntime();
    await t.state().loadTeam();
    t.state().teamMayHaveChanged();
    await vi.advanceTimersByTimeAsync(TEAM_POLL_MS * 2);
    expect(t.state().team).toBeNull();
    expect(t.fake.callsTo('team.status')).toHaveLength(1);
  });
});
