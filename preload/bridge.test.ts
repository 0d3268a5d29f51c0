// Tests run in Node beside the bundle, not in the sandboxed preload, so they may import vitest.
// eslint-disable-next-line no-restricted-imports
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS } from '../shared/contract';
import { createIpcBridge } from './bridge';
import { STREAM_CHANNELS } from '../shared/streams';

const { event: IPC_EVENT, subscribe: IPC_SUBSCRIBE, unsubscribe: IPC_UNSUBSCRIBE } = STREAM_CHANNELS;


const electron = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoke: vi.fn(),
  on: vi.fn(),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api) },
  ipcRenderer: { invoke: electron.invoke, on: electron.on },
}));

describe('the preload', () => {
  beforeEach(() => {
    electron.exposed.clear();
    electron.invoke.mockReset();
    electron.on.mockReset();
    vi.resetModules();
  });

  it('exposes window.agents with exactly one function per contract channel plus subscribe, onOpenPlan and onMenuKey, and no generic invoke', async () => {
    await import('./index');
    expect([...electron.exposed.keys()]).toEqual(['agents']);
    const api = electron.exposed.get('agents') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...CHANNELS, 'subscribe', 'onOpenPlan', 'onMenuKey'].sort());
    for (const key of Object.keys(api)) expect(api[key]).toBeTypeOf('function');
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('send');
  });

  it('invokes each channel by its own name and resolves with the data of an ok envelope', async () => {
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never);
    electron.invoke.mockResolvedValue({ ok: true, data: { plans: [] } });
    for (const channel of CHANNELS) {
      await expect((bridge[channel] as (r: unknown) => Promise<unknown>)({ planId: 'P' })).resolves.toEqual({ plans: [] });
      expect(electron.invoke).toHaveBeenLastCalledWith(channel, { planId: 'P' });
    }
  });

  it('rejects with a plain BridgeFailure that survives contextBridge (code, message, field)', async () => {
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never);
    const error = { code: 'invalid_request', message: 'planId: is required', field: 'planId' };
    electron.invoke.mockResolvedValue({ ok: false, error });
    const refused = await bridge['plans.get']({ planId: '' }).catch((e: unknown) => e);
    expect(refused).toStrictEqual({ name: 'BridgeError', ...error });
    expect(structuredClone(refused)).toStrictEqual(refused);
    electron.invoke.mockResolvedValue('garbage');
    await expect(bridge['plans.get']({ planId: 'P' })).rejects.toMatchObject({ code: 'bad_response' });
    electron.invoke.mockResolvedValue({ ok: false, error: { code: 'no such code', message: 'm' } });
    await expect(bridge['plans.get']({ planId: 'P' })).rejects.toMatchObject({ code: 'bad_response' });
  });

  it("turns Electron's own rejection of invoke (a handler that threw) into an internal failure with its sentence", async () => {
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never);
    electron.invoke.mockRejectedValue(new Error("Error invoking remote method 'plans.get': Error: boom"));
    await expect(bridge['plans.get']({ planId: 'P' })).rejects.toStrictEqual({
      name: 'BridgeError',
      code: 'internal',
      message: "Error invoking remote method 'plans.get': Error: boom",
    });
  });

  it('subscribes over IPC, hands each event to its listener only, and unsubscribes once', async () => {
    const warn = vi.fn();
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never, warn);
    electron.invoke.mockResolvedValue({ ok: true, data: {} });
    const first = vi.fn();
    const second = vi.fn();
    const stop = bridge.subscribe({ planId: 'P', afterSeq: 4 }, first);
    bridge.subscribe({ planId: null }, second);
    expect(electron.invoke).toHaveBeenCalledWith(IPC_SUBSCRIBE, { id: 1, subscription: { planId: 'P', afterSeq: 4 } });
    expect(electron.invoke).toHaveBeenCalledWith(IPC_SUBSCRIBE, { id: 2, subscription: { planId: null } });
    expect(electron.on).toHaveBeenCalledOnce();
    const [channel, listener] = electron.on.mock.calls[0] as [string, (e: unknown, m: unknown) => void];
    expect(channel).toBe(IPC_EVENT);
    const event = { planId: 'P', seq: 5, ts: '2026-01-01T00:00:00.000Z', type: 'decision_status', data: { decisionId: 'd5', status: 'running' } };
    listener({ sender: 'ipc internals' }, { subscriptionId: 1, event });
    listener({}, { subscriptionId: 99, event });
    listener({}, null);
    listener({}, { subscriptionId: 1, event: { ...event, seq: -1 } });
    listener({}, { subscriptionId: 1, event: { ...event, type: 'no_such_event' } });
    expect(first).toHaveBeenCalledExactlyOnceWith(event);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith('[agents] dropped a malformed event');
    expect(second).not.toHaveBeenCalled();
    stop();
    stop();
    expect(electron.invoke.mock.calls.filter(([c]) => c === IPC_UNSUBSCRIBE)).toEqual([[IPC_UNSUBSCRIBE, { id: 1 }]]);
    listener({}, { subscriptionId: 1, event });
    expect(first).toHaveBeenCalledOnce();
  });

  it("hands the shell's request to open a plan to the page as the plan's id alone, until it stops listening", async () => {
    const warn = vi.fn();
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never, warn);
    const opened = vi.fn();
    const stop = bridge.onOpenPlan!(opened);
    const [channel, listener] = electron.on.mock.calls[0] as [string, (e: unknown, planId: unknown) => void];
    expect(channel).toBe('agents:open-plan');
    listener({ sender: 'ipc internals' }, '01J0PLAN');
    listener({}, { planId: '01J0PLAN' });
    listener({}, '');
    expect(opened.mock.calls).toEqual([['01J0PLAN']]);
    expect(warn).toHaveBeenCalledTimes(2);
    stop();
    listener({}, '01J0OTHER');
    expect(opened).toHaveBeenCalledOnce();
  });

  it("hands the menu's key to the page", async () => {
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never, vi.fn());
    const pressed = vi.fn();
    bridge.onMenuKey!(pressed);
    const [channel, listener] = electron.on.mock.calls[0] as [string, (e: unknown, key: unknown) => void];
    expect(channel).toBe('agents:key');
    listener({}, 'A');
    listener({}, 42);
    expect(pressed.mock.calls).toEqual([['A']]);
  });

  it('forgets a subscription the host refused', async () => {
    const warn = vi.fn();
    const bridge = createIpcBridge({ invoke: electron.invoke, on: electron.on } as never, warn);
    electron.invoke.mockResolvedValue({ ok: false, error: { code: 'invalid_request', message: 'planId: no plan' } });
    const listener = vi.fn();
    bridge.subscribe({ planId: 'missing' }, listener);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('no plan'));
    const [, onEvent] = electron.on.mock.calls[0] as [string, (e: unknown, m: unknown) => void];
    onEvent({}, { subscriptionId: 1, event: {} });
    expect(listener).not.toHaveBeenCalled();
  });
});
