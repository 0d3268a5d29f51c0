import { writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/contract';
import type { StreamEvent } from '../../shared/events';
import type { TeamStatus } from '../../shared/team';
import { consoleOperator } from '../app/operator';
import { planYaml, tempApp, type TempApp } from '../app/test-support';
import { createRouter } from './router';

const data = <T>(envelope: Envelope<unknown>): T => {
  if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  return envelope.data as T;
};

const status: TeamStatus = {
  queued: 1,
  queuedPlans: ['P3'],
  running: 2,
  workers: [{ name: 'worker@a', host: 'a', pid: 7, concurrency: 2, plans: ['P1', 'P2'], lastHeartbeat: '2026-01-01T00:00:00.000Z', live: true }],
  operator: 'ada',
  host: 'console-host',
};

describe('the team over the contract', () => {
  let t: TempApp;
  beforeEach(async () => {
    t = await tempApp();
  });
  afterEach(() => t.dispose());

  it('answers team.status with null over the embedded database', async () => {
    const router = createRouter(t.app.service, { log: () => undefined });
    expect(await router.handle('team.status', {})).toEqual({ ok: true, data: null });
  });

  it("answers team.status with the host's team: the queue's depth and the workers with their plans", async () => {
    const router = createRouter(t.app.service, { log: () => undefined, teamStatus: async () => status });
    expect(data(await router.handle('team.status', {}))).toEqual(status);
    // A status that does not match the contract is an internal error, never sent on.
    const broken = createRouter(t.app.service, { log: () => undefined, teamStatus: async () => ({ ...status, queued: -1 }) });
    expect(await broken.handle('team.status', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it("records a console's recovery under the operator the host names, on this machine", async () => {
    const file = path.join(t.root, 'failing.yaml');
    writeFileSync(file, planYaml(t.project, { steps: 2, failAt: 1 }));
    const plan = await t.app.service.createFromFile(file);
    await t.app.service.run(plan.id).catch(() => undefined);
    const router = createRouter(t.app.service, { log: () => undefined, operator: () => 'ada' });
    data(await router.handle('plans.skip', { planId: plan.id }));
    const { events } = await t.app.service.eventsAfter(plan.id, 0, 1000);
    const applied = events.find((e): e is Extract<StreamEvent, { type: 'recovery_applied' }> => e.type === 'recovery_applied');
    expect(applied?.data).toMatchObject({ action: 'skip', by: 'ada', host: hostname() });
    const decision = (await t.app.service.decisions(plan.id)).find((d) => d.type === 'error_recovery' && d.rationale.startsWith('skip'));
    expect(decision?.rationale).toBe(`skip by ada on ${hostname()}`);
  });
});

describe('who a console answers as', () => {
  const settings = (operator?: string) => ({ read: () => (operator === undefined ? {} : { operator }) });

  it('is the operator name in the settings, in either mode', () => {
    expect(consoleOperator(settings('ada'), false)()).toBe('ada');
    expect(consoleOperator(settings('ada'), true)()).toBe('ada');
  });

  it('is "console" on one machine, and the OS user that serves it in team mode, when the settings name nobody', () => {
    expect(consoleOperator(settings(), false)()).toBe('console');
    expect(consoleOperator(settings('  '), false)()).toBe('console');
    expect(consoleOperator(settings(), true)()).toBe(userInfo().username);
  });

  it('reads the settings at each answer, so a name saved in Settings counts from the next one', () => {
    const stored: { operator?: string } = {};
    const operator = consoleOperator({ read: () => stored }, true);
    expect(operator()).toBe(userInfo().username);
    stored.operator = 'grace';
    expect(operator()).toBe('grace');
  });
});
