// The console cannot tell the transports apart (docs/ARCHITECTURE.md): the preload's IPC bridge and
// the WebSocket bridge, given the same answers from the host, reject and deliver alike.
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import { failureOf } from '../shared/contract';
import type { StreamEvent } from '../shared/events';
import { createIpcBridge } from '../preload/bridge';
import { createWsBridge } from '../renderer/src/bridge/ws-bridge';
import { errorText } from '../renderer/src/lib/format';
import { isStaleRefusal } from '../renderer/src/lib/stale-refusal';
import { fakeSocketFactory, ManualTimers } from '../renderer/src/test-support/fake-socket';

/** What crosses Electron's IPC: a structured clone. */
const clone = <T>(value: T): T => deserialize(serialize(value)) as T;

const refusal = { code: 'wrong_state', message: 'plan P1 is Running; pause it first' } as const;
const good: StreamEvent = { planId: 'P1', seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'decision_status', data: { decisionId: 'd1', status: 'running' } };
const bad = { ...good, seq: 2, data: { decisionId: 'd2', status: 'no such status' } };

function overIpc(answer: unknown) {
  let onEvent: ((event: unknown, message: unknown) => void) | null = null;
  const ipc = {
    invoke: vi.fn(async () => clone(answer)),
    on: vi.fn((_channel: string, listener: (event: unknown, message: unknown) => void) => void (onEvent = listener)),
  };
  const bridge = createIpcBridge(ipc as never, () => undefined);
  return { bridge, push: (event: unknown) => onEvent?.({}, clone({ subscriptionId: 1, event })) };
}

function overWebSocket(answer: { ok: false; error: unknown }) {
  const { factory, connections } = fakeSocketFactory();
  const ws = createWsBridge({ url: 'ws://127.0.0.1:1/ws', socket: factory, timers: new ManualTimers(), onProtocolError: () => undefined });
  const connection = connections[0]!;
  connection.open();
  return {
    bridge: ws.bridge,
    answerLast: () => connection.receive({ type: 'reply', id: connection.lastSent()!.id, ...answer }),
    push: (event: unknown) => connection.receive({ type: 'event', subscriptionId: 1, event }),
  };
}

describe('the two transports', () => {
  it('reject a refused call with the same plain failure, which the console reads by its shape', async () => {
    const ipc = overIpc({ ok: false, error: refusal });
    const ws = overWebSocket({ ok: false, error: refusal });
    const viaIpc = await ipc.bridge['plans.pause']({ planId: 'P1' }).catch((e: unknown) => e);
    const pending = ws.bridge['plans.pause']({ planId: 'P1' }).catch((e: unknown) => e);
    ws.answerLast();
    const viaWs = await pending;
    expect(viaIpc).toStrictEqual(viaWs);
    // contextBridge copies a plain object as it is; an Error would lose its code.
    expect(clone(viaIpc)).toStrictEqual(viaWs);
    for (const failure of [viaIpc, viaWs]) {
      expect(errorText(failure)).toBe(refusal.message);
      expect(isStaleRefusal(failure)).toBe(true);
      expect(failureOf(failure)).toEqual(refusal);
    }
  });

  it('deliver a well-formed event and drop one that fails its schema, alike', () => {
    const ipc = overIpc({ ok: true, data: {} });
    const ws = overWebSocket({ ok: false, error: refusal });
    const seen = { ipc: [] as StreamEvent[], ws: [] as StreamEvent[] };
    ipc.bridge.subscribe({ planId: 'P1' }, (event) => seen.ipc.push(event));
    ws.bridge.subscribe({ planId: 'P1' }, (event) => seen.ws.push(event));
    for (const transport of [ipc, ws]) {
      transport.push(good);
      transport.push(bad);
    }
    expect(seen.ipc).toEqual([good]);
    expect(seen.ws).toEqual([good]);
  });
});
