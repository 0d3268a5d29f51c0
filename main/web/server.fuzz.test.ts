import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeErrorSchema } from '../../shared/contract';
import { ServerMessageSchema } from '../../shared/ws-protocol';
import { invalidCall } from '../host/fuzz-arbitraries';
import { tempApp, type TempApp } from '../app/test-support';
import { type RunningServer, startServer } from './server';
import { connect, type TestClient } from './test-support';

const WS_FUZZ_RUNS = 10_000;

/**
 * JSON.stringify that survives what fast-check makes, and keeps an invalid request invalid: an
 * `undefined` stray key would vanish and leave a valid `{}`, so it becomes null instead.
 */
const toJson = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v === undefined ? null : v)) ?? 'null';

const id = fc.oneof(fc.nat(), fc.integer({ min: -5, max: -1 }), fc.double(), fc.string({ maxLength: 5 }), fc.constant(null));

/** One frame to send; none of them is a message the server can accept. */
const frame = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 300, unit: 'binary' }).map((text) => ({ text, binary: false })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ text: toJson(v), binary: false })) },
  { weight: 4, arbitrary: fc.tuple(fc.nat(), invalidCall).map(([n, c]) => ({ text: toJson({ type: 'call', id: n, channel: c.channel, request: c.request }), binary: false })) },
  { weight: 1, arbitrary: fc.tuple(id, fc.anything({ maxDepth: 2 })).map(([i, s]) => ({ text: toJson({ type: 'subscribe', id: i, subscription: s }), binary: false })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{25}$/), fc.nat())
      .map(([i, plan, after]) => ({ text: toJson({ type: 'subscribe', id: i, subscription: { planId: `Z${plan}`, afterSeq: after } }), binary: false })),
  },
  { weight: 1, arbitrary: fc.nat().map((i) => ({ text: toJson({ type: 'unsubscribe', id: i }), binary: false })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([i, key, value]) => ({ text: toJson({ type: 'call', id: i, channel: 'app.info', request: {}, [`x${key}`]: value }), binary: false })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: Buffer.from(bytes).toString('latin1'), binary: true })) },
);

/** The id the server can read back from a frame, as it does: a safe non-negative integer `id`, else null. */
function expectedId(text: string, binary: boolean): number | null {
  if (binary) return null;
  try {
    const value: unknown = JSON.parse(text);
    const candidate = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
    return typeof candidate === 'number' && Number.isSafeInteger(candidate) && candidate >= 0 ? candidate : null;
  } catch {
    return null;
  }
}

describe('WebSocket fuzz', () => {
  let t: TempApp;
  let server: RunningServer;
  let client: TestClient;
  const internal: [string, unknown][] = [];

  beforeAll(async () => {
    t = await tempApp();
    server = await startServer({ service: t.app.service, dataDir: t.app.dataDir, rendererDir: t.root, log: (m, e) => internal.push([m, e]) });
    client = await connect(server.wsUrl, `http://127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await t.dispose();
  });

  it(`answers ${WS_FUZZ_RUNS} malformed frames with one error reply each, and stays up`, async () => {
    let replies = 0;
    await fc.assert(
      fc.asyncProperty(frame, async ({ text, binary }) => {
        client.send(binary ? Buffer.from(text, 'latin1') : text, binary);
        const reply = await client.next();
        replies += 1;
        expect(ServerMessageSchema.safeParse(reply).success).toBe(true);
        expect(reply).toMatchObject({ type: 'reply', ok: false, id: expectedId(text, binary) });
        if (reply.type === 'reply' && !reply.ok) expect(BridgeErrorSchema.safeParse(reply.error).success).toBe(true);
      }),
      { numRuns: WS_FUZZ_RUNS },
    );
    expect(replies).toBe(WS_FUZZ_RUNS);
    // Nothing extra was sent, nothing went wrong inside, and the server still serves.
    await expect(client.next(200)).rejects.toThrow(/timeout/);
    expect(internal.filter(([m]) => m !== 'websocket error')).toEqual([]);
    expect(await client.call('app.info', {})).toMatchObject({ type: 'reply', ok: true });
    const fresh = await connect(server.wsUrl, `http://127.0.0.1:${server.port}`);
    expect(await fresh.call('plans.list', {})).toEqual({ type: 'reply', id: expect.any(Number), ok: true, data: { plans: [] } });
    await fresh.close();
  }, 60_000);
});
