import { describe, expect, it, vi } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import { CHANNELS, type Channel } from '../../shared/contract';
import { EventPublisher } from '../engine/ports/event-stream';
import { InMemoryEventLog } from '../engine/test-support/in-memory-stores';
import type { PlanService } from '../app/plan-service';
import { EventHub } from '../host/event-hub';
import { createRouter, type Router } from '../host/router';
import { APP_ORIGIN } from './app-origin';
import { registerIpc, trustedSender } from './ipc';
import { STREAM_CHANNELS } from '../../shared/streams';

import { fakeIpcMain, fakeWebContents, invokeEvent } from './test-support';

const { event: IPC_EVENT, subscribe: IPC_SUBSCRIBE, unsubscribe: IPC_UNSUBSCRIBE } = STREAM_CHANNELS;

// Nothing here may load the real module: its binary is not on these machines.
vi.mock('electron', () => ({}));

/** A request each channel's schema refuses. */
const INVALID: Record<Channel, unknown> = {
  'app.info': { extra: true },
  'plans.list': { state: 'sleeping' },
  'plans.get': {},
  'plans.create': { path: 'a.yaml', content: 'name: x' },
  'plans.createFromDialog': { path: '/etc/passwd' },
  'plans.checkProject': { project: '' },
  'plans.decisions': { planId: '' },
  'plans.invocations': { planId: 7 },
  'plans.invocationsForDecision': { planId: 'P' },
  'plans.toolTallies': { planId: '' },
  'plans.events': { planId: 'P', afterSeq: -1 },
  'plans.changes': { planId: 'P', limit: 0 },
  'plans.change': { planId: 'P' },
  'plans.review': { planId: '' },
  'plans.reviewDiff': { planId: 'P' },
  'plans.errors': null,
  'plans.checks': { planId: '' },
  'plans.verify': { planId: 'P', accept: true },
  'plans.run': { planId: 'P', step: 'yes' },
  'plans.step': 'P',
  'plans.continue': [],
  'plans.pause': { planId: 'x'.repeat(65) },
  'plans.breakpoint': { planId: 'P', decisionId: 'D' },
  'plans.retry': { planId: 'P', force: true },
  'plans.reset': { planId: null },
  'plans.apply': { planId: 'P', paths: [''] },
  'plans.discard': undefined,
  'plans.readFile': { planId: 'P' },
  'plans.saveFile': { planId: 'P', path: 'a.txt' },
  'plans.openSandbox': { planId: 'P', path: '/etc' },
  'plans.approvals': { planId: 1 },
  'plans.approve': { planId: 'P', all: 'yes' },
  'plans.reject': { planId: 'P', reason: '  ' },
  'plans.skip': { planId: 'P', step: 0 },
  'plans.setProfile': { planId: 'P', profile: 'reckless' },
  'plans.correct': { planId: 'P', note: 5 },
  'plans.checkpoints': { planId: '' },
  'plans.rewindPreview': { planId: 'P', toStep: 0 },
  'plans.rewind': { planId: 'P' },
  'plans.fork': { planId: 'P', atStep: 0 },
  'plans.compare': { planId: 'P' },
  'plans.rejectHunks': { planId: 'P', path: 'a.txt', hunks: [0] },
  'plans.restoreHunks': { planId: 'P', path: 'a.txt' },
  'team.status': { extra: 1 },
  'settings.get': { apiKey: 'x' },
  'settings.set': { model: 'no-provider' },
  'settings.mcp': { extra: 1 },
  'settings.mcpAdd': { name: 'files', commandLine: 1 },
  'settings.mcpRemove': { name: '' },
  'settings.acp': { extra: 1 },
  'settings.acpAdd': { name: 'qwen-local', commandLine: 'qwen --acp', env: 'K=V' },
  'settings.acpRemove': { name: '' },
};

function setup(router?: Router) {
  const ipcMain = fakeIpcMain();
  const log = new InMemoryEventLog();
  const publisher = new EventPublisher(log);
  const source = {
    events: publisher,
    eventsAfter: async (planId: string, afterSeq: number, limit: number) => ({ events: await log.list(planId, afterSeq, limit), lastSeq: await log.lastSeq(planId) }),
    get: async (planId: string) => {
      if (await log.lastSeq(planId) === 0) throw new Error('no such plan');
    },
  };
  const hub = new EventHub(source);
  const ours = fakeWebContents(1);
  const realRouter = router ?? createRouter({} as PlanService, { log: () => undefined });
  const handle = vi.spyOn(realRouter, 'handle');
  const binding = registerIpc({
    ipcMain,
    router: realRouter,
    hub,
    log: () => undefined,
    isTrusted: trustedSender({ appOrigin: APP_ORIGIN, webContentsId: () => ours.id }),
  });
  return { ipcMain, ours, handle, binding, publisher, hub };
}

describe('IPC binding', () => {
  it('registers one handler per contract channel plus subscribe and unsubscribe, and removes them all on dispose', () => {
    const { ipcMain, binding } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNELS, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE].sort());
    binding.dispose();
    expect(ipcMain.handlers.size).toBe(0);
  });

  describe.each(CHANNELS)('%s', (channel) => {
    it('refuses a sender that is not our window, an iframe, or a page of another origin, without calling the router', async () => {
      const { ipcMain, ours, handle } = setup();
      const other = fakeWebContents(2);
      const forbidden = { ok: false, error: { code: 'forbidden', message: expect.any(String) } };
      expect(await ipcMain.invoke(channel, invokeEvent(other, 'app://console/index.html'), {})).toEqual(forbidden);
      expect(await ipcMain.invoke(channel, invokeEvent(ours, 'https://evil.example/'), {})).toEqual(forbidden);
      expect(await ipcMain.invoke(channel, invokeEvent(ours, 'file:///etc/passwd'), {})).toEqual(forbidden);
      expect(await ipcMain.invoke(channel, invokeEvent(ours, 'app://other/index.html'), {})).toEqual(forbidden);
      expect(await ipcMain.invoke(channel, invokeEvent(ours, 'app://console/index.html', { url: 'app://console/' }), {})).toEqual(forbidden);
      expect(await ipcMain.invoke(channel, invokeEvent(ours, null), {})).toEqual(forbidden);
      expect(handle).not.toHaveBeenCalled();
    });

    it("passes our window's payload through the router, which refuses an invalid one", async () => {
      const { ipcMain, ours, handle } = setup();
      const reply = await ipcMain.invoke(channel, invokeEvent(ours, 'app://console/index.html'), INVALID[channel]);
      expect(handle).toHaveBeenCalledWith(channel, INVALID[channel]);
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.any(String) } });
    });
  });

  it('streams a subscription to the window that asked, by webContents.send, until unsubscribed', async () => {
    const { ipcMain, ours, publisher } = setup();
    const trusted = invokeEvent(ours, 'app://console/index.html');
    await publisher.publish('P', 'plan_created', sampleData('plan_created'));
    expect(await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 3, subscription: { planId: 'P', afterSeq: 0 } })).toEqual({ ok: true, data: { subscriptionId: 3 } });
    await new Promise((resolve) => setImmediate(resolve));
    await publisher.publish('P', 'state_changed', sampleData('state_changed'));
    expect(ours.sent.map(([channel, m]) => [channel, (m as { subscriptionId: number; event: { seq: number } }).subscriptionId, (m as { event: { seq: number } }).event.seq])).toEqual([
      [IPC_EVENT, 3, 1],
      [IPC_EVENT, 3, 2],
    ]);
    expect(await ipcMain.invoke(IPC_UNSUBSCRIBE, trusted, { id: 3 })).toEqual({ ok: true, data: {} });
    await publisher.publish('P', 'state_changed', sampleData('state_changed'));
    expect(ours.sent).toHaveLength(2);
    expect(await ipcMain.invoke(IPC_UNSUBSCRIBE, trusted, { id: 3 })).toMatchObject({ ok: false, error: { code: 'unknown_subscription' } });
  });

  it('validates subscribe and unsubscribe payloads and senders', async () => {
    const { ipcMain, ours } = setup();
    const trusted = invokeEvent(ours, 'app://console/index.html');
    for (const bad of [null, {}, { id: -1, subscription: { planId: null } }, { id: 1, subscription: { planId: 5 } }, { id: 1, subscription: { planId: null }, x: 1 }]) {
      expect(await ipcMain.invoke(IPC_SUBSCRIBE, trusted, bad)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
    expect(await ipcMain.invoke(IPC_UNSUBSCRIBE, trusted, { id: 'x' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const foreign = invokeEvent(ours, 'https://evil.example/');
    expect(await ipcMain.invoke(IPC_SUBSCRIBE, foreign, { id: 1, subscription: { planId: null } })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await ipcMain.invoke(IPC_UNSUBSCRIBE, foreign, { id: 1 })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 1, subscription: { planId: 'missing' } })).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 1, subscription: { planId: null } })).toMatchObject({ ok: true });
    expect(await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 1, subscription: { planId: null } })).toMatchObject({ ok: false, error: { code: 'duplicate_subscription' } });
  });

  it("drops a window's subscriptions when it reloads or is destroyed", async () => {
    const { ipcMain, ours, publisher, hub } = setup();
    const trusted = invokeEvent(ours, 'app://console/index.html');
    await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 1, subscription: { planId: null } });
    await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 2, subscription: { planId: null } });
    expect(hub.size).toBe(2);
    ours.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
    expect(hub.size).toBe(0);
    await ipcMain.invoke(IPC_SUBSCRIBE, trusted, { id: 1, subscription: { planId: null } });
    ours.destroyed = true;
    ours.emit('destroyed');
    await publisher.publish('P', 'plan_created', sampleData('plan_created'));
    expect(hub.size).toBe(0);
    expect(ours.sent).toHaveLength(0);
  });
});
