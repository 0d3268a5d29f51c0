import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { fakeSocketFactory, ManualTimers } from '../test-support/fake-socket';
import { createWsBridge, MAX_SERVER_MESSAGE_CHARS } from './ws-bridge';

const URL = 'ws://127.0.0.1:4000/ws?token=t0k';

function setup() {
  const { factory, connections } = fakeSocketFactory();
  const timers = new ManualTimers();
  const errors: string[] = [];
  const ws = createWsBridge({
    url: URL,
    socket: factory,
    timers,
    now: () => timers.now,
    backoff: (attempt) => 100 * 2 ** attempt,
    onProtocolError: (message) => errors.push(message),
  });
  const current = () => connections.at(-1)!;
  return { ws, bridge: ws.bridge, connections, current, timers, errors };
}

const event = (seq: number, planId = 'P1'): StreamEvent => ({ planId, seq, ts: '2026-01-01T00:00:00.000Z', type: 'decision_status', data: { decisionId: `d${seq}`, status: 'running' } });

const info = { version: '0.1.0', dataDir: '/tmp/a', tools: [], nativeFileDialog: false };

describe('the WebSocket bridge', () => {
  it('connects to the URL it was given', () => {
    const { current } = setup();
    expect(current().url).toBe(URL);
  });

  it('sends a call with an incrementing id and resolves with the matching reply', async () => {
    const { bridge, current } = setup();
    current().open();
    const first = bridge['app.info']({});
    const second = bridge['plans.list']({});
    const [a, b] = current().sent;
    expect(a).toEqual({ type: 'call', id: 1, channel: 'app.info', request: {} });
    expect(b).toMatchObject({ type: 'call', id: 2, channel: 'plans.list' });

    current().receive({ type: 'reply', id: 2, ok: true, data: { plans: [] } });
    current().receive({ type: 'reply', id: 1, ok: true, data: info });
    await expect(first).resolves.toEqual(info);
    await expect(second).resolves.toEqual({ plans: [] });
  });

  it('rejects with the plain BridgeFailure the preload rejects with, carrying the server error', async () => {
    const { bridge, current } = setup();
    current().open();
    const call = bridge['plans.get']({ planId: 'nope' });
    current().receive({ type: 'reply', id: 1, ok: false, error: { code: 'invalid_request', message: 'planId: no plan', field: 'planId' } });
    const error = await call.catch((e: unknown) => e);
    expect(error).toStrictEqual({ name: 'BridgeError', code: 'invalid_request', message: 'planId: no plan', field: 'planId' });
  });

  it('sends a request as given: the host parses it, once', async () => {
    const { bridge, current } = setup();
    current().open();
    void bridge['plans.get']({ planId: '' }).catch(() => undefined);
    expect(current().sent[0]).toMatchObject({ type: 'call', channel: 'plans.get', request: { planId: '' } });
  });

  it('drops messages that are not valid server messages and reports them', () => {
    const { current, errors } = setup();
    current().open();
    current().receive('not json');
    current().receive({ type: 'surprise' });
    expect(errors).toHaveLength(2);
  });

  it('reads a reply of several MB, and fails a call whose reply is too large to read instead of leaving it waiting', async () => {
    const { bridge, current, errors } = setup();
    current().open();
    const large = bridge['plans.events']({ planId: 'P1' });
    const padded = { ...event(1), type: 'execute_step', data: { decisionId: 'd1', index: 1, total: 1, description: 'x'.repeat(5 * 1_048_576) } };
    current().receive({ type: 'reply', id: 1, ok: true, data: { events: [padded], lastSeq: 1 } });
    await expect(large).resolves.toMatchObject({ lastSeq: 1 });

    const tooLarge = bridge['plans.get']({ planId: 'P1' });
    current().receive(`{"type":"reply","id":2,"ok":true,"data":{"pad":"${'x'.repeat(MAX_SERVER_MESSAGE_CHARS)}"}}`);
    await expect(tooLarge).rejects.toMatchObject({ code: 'message_too_large' });
    expect(errors).toEqual(['dropped an oversized message']);
  });

  it('queues calls made before the socket opens and sends them on open', async () => {
    const { bridge, current } = setup();
    const call = bridge['app.info']({});
    expect(current().sent).toEqual([]);
    current().open();
    expect(current().sent).toEqual([{ type: 'call', id: 1, channel: 'app.info', request: {} }]);
    current().receive({ type: 'reply', id: 1, ok: true, data: info });
    await expect(call).resolves.toEqual(info);
  });

  it('subscribes and delivers events for that subscription only', () => {
    const { bridge, current } = setup();
    current().open();
    const seen: number[] = [];
    bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    expect(current().lastSent()).toEqual({ type: 'subscribe', id: 1, subscription: { planId: 'P1', afterSeq: 0 } });
    current().receive({ type: 'event', subscriptionId: 1, event: event(1) });
    current().receive({ type: 'event', subscriptionId: 99, event: event(2) });
    current().receive({ type: 'event', subscriptionId: 1, event: event(2) });
    expect(seen).toEqual([1, 2]);
  });

  it('asks for the event types a subscription wants, again after a reconnect', () => {
    const { bridge, current, timers } = setup();
    current().open();
    bridge.subscribe({ planId: null, types: ['plan_created', 'state_changed'] }, () => undefined);
    const asked = { type: 'subscribe', id: 1, subscription: { planId: null, afterSeq: 0, types: ['plan_created', 'state_changed'] } };
    expect(current().lastSent()).toEqual(asked);
    current().drop();
    timers.advance(100);
    current().open();
    expect(current().lastSent()).toEqual(asked);
  });

  it('delivers a batch of events one by one, skipping those already delivered', () => {
    const { bridge, current } = setup();
    current().open();
    const seen: number[] = [];
    bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    current().receive({ type: 'event', subscriptionId: 1, event: event(1) });
    current().receive({ type: 'events', subscriptionId: 1, events: [event(1), event(2), event(3)] });
    current().receive({ type: 'events', subscriptionId: 99, events: [event(4), event(5)] });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('drops a batch with a malformed event, as it drops any malformed message', () => {
    const { bridge, current, errors } = setup();
    current().open();
    const seen: number[] = [];
    bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    current().receive({ type: 'events', subscriptionId: 1, events: [event(1), { ...event(2), type: 'bogus' }] });
    current().receive({ type: 'event', subscriptionId: 1, event: { ...event(3), seq: 0 } });
    expect(seen).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/malformed/);
  });

  it('ignores an event it has already delivered', () => {
    const { bridge, current } = setup();
    current().open();
    const seen: number[] = [];
    bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    for (const seq of [1, 2, 2, 1, 3]) current().receive({ type: 'event', subscriptionId: 1, event: event(seq) });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('unsubscribes: stops delivering and tells the server', () => {
    const { bridge, current } = setup();
    current().open();
    const seen: number[] = [];
    const unsubscribe = bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    unsubscribe();
    expect(current().lastSent()).toEqual({ type: 'unsubscribe', id: 1 });
    current().receive({ type: 'event', subscriptionId: 1, event: event(1) });
    expect(seen).toEqual([]);
  });

  it('reconnects with growing backoff and reports the connection state', () => {
    const { ws, connections, current, timers } = setup();
    const states: string[] = [];
    ws.connection.subscribe((s) => states.push(s.state));
    current().open();
    current().drop();
    expect(ws.connection.get()).toEqual({ state: 'closed', attempt: 1, retryAt: 100 });
    timers.advance(99);
    expect(connections).toHaveLength(1);
    timers.advance(1);
    expect(connections).toHaveLength(2);
    current().drop();
    timers.advance(199);
    expect(connections).toHaveLength(2);
    timers.advance(1);
    expect(connections).toHaveLength(3);
    current().open();
    expect(states).toEqual(['open', 'closed', 'connecting', 'closed', 'connecting', 'open']);
  });

  it('stops reconnecting and reports "refused" when a connection that never opened meets a token the server refuses', async () => {
    const { factory, connections } = fakeSocketFactory();
    const timers = new ManualTimers();
    const asked: string[] = [];
    const ws = createWsBridge({
      url: URL,
      socket: factory,
      timers,
      now: () => timers.now,
      backoff: () => 100,
      checkAccess: async () => {
        asked.push('check');
        return 'refused';
      },
    });
    connections.at(-1)!.drop();
    await Promise.resolve();
    await Promise.resolve();
    expect(asked).toEqual(['check']);
    expect(ws.connection.get()).toEqual({ state: 'refused' });
    timers.advance(10_000);
    expect(connections).toHaveLength(1);
  });

  it('keeps reconnecting while the server is only gone, and never asks about the token of a connection that opened', async () => {
    const { factory, connections } = fakeSocketFactory();
    const timers = new ManualTimers();
    const asked: string[] = [];
    const ws = createWsBridge({
      url: URL,
      socket: factory,
      timers,
      now: () => timers.now,
      backoff: () => 100,
      checkAccess: async () => {
        asked.push('check');
        return 'unknown';
      },
    });
    connections.at(-1)!.open();
    connections.at(-1)!.drop();
    await Promise.resolve();
    expect(asked).toEqual([]);
    timers.advance(100);
    connections.at(-1)!.drop();
    await Promise.resolve();
    await Promise.resolve();
    expect(asked).toEqual(['check']);
    expect(ws.connection.get().state).toBe('closed');
    timers.advance(100);
    expect(connections).toHaveLength(3);
  });

  it('resets the backoff after a successful reconnect', () => {
    const { connections, current, timers } = setup();
    current().open();
    current().drop();
    timers.advance(100);
    current().open();
    current().drop();
    timers.advance(100);
    expect(connections).toHaveLength(3);
  });

  it('re-subscribes after a reconnect from the last seq it saw, so no event is lost', () => {
    const { bridge, current, timers } = setup();
    current().open();
    const seen: number[] = [];
    bridge.subscribe({ planId: 'P1', afterSeq: 0 }, (e) => seen.push(e.seq));
    bridge.subscribe({ planId: null }, () => {});
    current().receive({ type: 'event', subscriptionId: 1, event: event(1) });
    current().receive({ type: 'event', subscriptionId: 1, event: event(2) });
    current().drop();
    timers.advance(100);
    current().open();
    expect(current().sent).toEqual([
      { type: 'subscribe', id: 1, subscription: { planId: 'P1', afterSeq: 2 } },
      { type: 'subscribe', id: 2, subscription: { planId: null, afterSeq: 0 } },
    ]);
    // The server replays from seq 3; an overlapping replay is filtered.
    current().receive({ type: 'event', subscriptionId: 1, event: event(2) });
    current().receive({ type: 'event', subscriptionId: 1, event: event(3) });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('does not re-subscribe what was unsubscribed while disconnected', () => {
    const { bridge, current, timers } = setup();
    current().open();
    const unsubscribe = bridge.subscribe({ planId: 'P1', afterSeq: 0 }, () => {});
    current().drop();
    unsubscribe();
    timers.advance(100);
    current().open();
    expect(current().sent).toEqual([]);
  });

  it('rejects calls in flight when the connection drops, and keeps unsent ones for the next connection', async () => {
    const { bridge, current, timers } = setup();
    current().open();
    const inFlight = bridge['app.info']({});
    current().drop();
    const queued = bridge['plans.list']({});
    await expect(inFlight).rejects.toMatchObject({ code: 'disconnected' });
    timers.advance(100);
    current().open();
    expect(current().sent).toEqual([{ type: 'call', id: 2, channel: 'plans.list', request: {} }]);
    current().receive({ type: 'reply', id: 2, ok: true, data: { plans: [] } });
    await expect(queued).resolves.toEqual({ plans: [] });
  });

  it('stops reconnecting and rejects pending calls once disposed', async () => {
    const { ws, bridge, connections, current, timers } = setup();
    const call = bridge['app.info']({});
    ws.dispose();
    await expect(call).rejects.toMatchObject({ code: 'disposed' });
    expect(current().closed).toBe(true);
    current().drop();
    timers.advance(60_000);
    expect(connections).toHaveLength(1);
  });

  it('schedules one reconnect even if a socket reports its close twice', () => {
    const { connections, current, timers } = setup();
    current().open();
    current().drop();
    current().drop();
    timers.advance(1_000);
    expect(connections).toHaveLength(2);
    expect(timers.pending).toBe(0);
  });
});
