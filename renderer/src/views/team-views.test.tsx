import { describe, expect, it } from 'vitest';
import type { TeamStatus } from '../../../shared/team';
import { makePlan, settle, NOTIFY_DEFAULTS } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { render } from '../test-support/render';
import { PlanHeader } from './PlanHeader';
import { SettingsSheet } from './SettingsSheet';
import { TopBar } from './TopBar';

const heartbeat = '2026-01-01T00:00:00.000Z';
const team: TeamStatus = {
  queued: 2,
  queuedPlans: ['P4', 'P5'],
  running: 1,
  workers: [
    { name: 'worker@build-1', host: 'build-1', pid: 41, concurrency: 2, plans: ['P1'], lastHeartbeat: heartbeat, live: true },
    { name: 'nightly', host: 'build-2', pid: 42, concurrency: 1, plans: [], lastHeartbeat: heartbeat, live: true },
    { name: 'worker@gone', host: 'gone', pid: 43, concurrency: 1, plans: ['P9'], lastHeartbeat: heartbeat, live: false },
  ],
  operator: 'ada',
  host: 'console-host',
};

describe('the team in the console', () => {
  it('shows nothing of a team over the embedded database', async () => {
    const { store, runtime } = testRuntime();
    runtime.start();
    await settle();
    expect(store.getState().team).toBeNull();
    expect(render(store, <TopBar />)).not.toContain('Team:');
    expect(render(store, <PlanHeader plan={makePlan()} />)).not.toContain('Running on');
    runtime.dispose();
  });

  it('shows the queue and the live workers in the top bar, and the worker that runs the open plan in its header', async () => {
    const { store, runtime, fake } = testRuntime();
    fake.team = team;
    runtime.start();
    await settle();
    expect(fake.callsTo('team.status')).toHaveLength(1);
    const bar = render(store, <TopBar />);
    expect(bar).toContain('Team: 2 queued · 1 running · 2 workers');
    expect(bar).toContain('You answer as ada on console-host');
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P1', processingState: 'processing' })} />)).toContain('Running on worker@build-1');
    // Once the plan stops, the worker is no longer shown, even before the next status says the job ended.
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P1', processingState: 'paused' })} />)).not.toContain('Running on');
    // A worker named by hand is shown with its machine; a plan no worker holds says nothing.
    store.setState({ team: { ...team, workers: [{ ...team.workers[1], plans: ['P2'] }] } });
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P2', processingState: 'processing' })} />)).toContain('Running on nightly on build-2');
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P3', processingState: 'processing' })} />)).not.toContain('Running on');
    // A plan whose run waits for a worker says so, where it would otherwise read as ready to run.
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P4' })} />)).toContain('Queued for a worker');
    expect(render(store, <PlanHeader plan={makePlan({ id: 'P3' })} />)).not.toContain('Queued for a worker');
    runtime.dispose();
  });

  it('offers the team database (never shown unmasked) and the operator name in Settings', () => {
    const { store } = testRuntime();
    store.setState({
      settingsOpen: true,
      settings: {
        model: null,
        baseUrl: null,
        apiKeySet: false,
        price: null,
        database: 'postgresql://agents:***@db.example:5432/agents',
        operator: 'ada',
        notify: NOTIFY_DEFAULTS,
        effective: { model: null, modelSource: 'none', baseUrl: null, apiKeySource: 'none' },
      },
    });
    const html = render(store, <SettingsSheet />);
    expect(html).toContain('<label for="settings-database">Team database</label>');
    expect(html).toMatch(/id="settings-database"[^>]*type="password"/);
    expect(html).toContain('Set: postgresql://agents:***@db.example:5432/agents.');
    expect(html).toContain('<label for="settings-operator">Operator name</label>');
    expect(html).toContain('Leave the team database');
  });
});

describe('the team status in the store', () => {
  it('asks again shortly after a plan changes state, and stops asking once disposed', async () => {
    const { store, runtime, fake } = testRuntime();
    fake.team = team;
    runtime.start();
    await settle();
    const asked = fake.callsTo('team.status').length;
    fake.team = { ...team, running: 0 };
    fake.emit({ planId: 'P1', seq: 9, ts: heartbeat, type: 'state_changed', data: { from: 'processing', to: 'paused', phase: 'execute' } });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await settle();
    expect(fake.callsTo('team.status').length).toBe(asked + 1);
    expect(store.getState().team?.running).toBe(0);
    runtime.dispose();
    fake.emit({ planId: 'P1', seq: 10, ts: heartbeat, type: 'state_changed', data: { from: 'paused', to: 'queued', phase: 'execute' } });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(fake.callsTo('team.status').length).toBe(asked + 1);
  });
});
