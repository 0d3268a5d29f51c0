import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeErrorSchema } from '../../shared/contract';
import { invalidCall } from './fuzz-arbitraries';
import { createRouter, type Router } from './router';
import { tempApp, type TempApp } from '../app/test-support';

const ROUTER_FUZZ_RUNS = 10_000;

describe('router fuzz', () => {
  let t: TempApp;
  let router: Router;
  const internal: unknown[] = [];

  beforeAll(async () => {
    t = await tempApp();
    router = createRouter(t.app.service, { dataDir: t.app.dataDir, log: (_m, e) => internal.push(e), baseDir: t.root });
  });
  afterAll(() => t.dispose());

  it(`refuses ${ROUTER_FUZZ_RUNS} malformed requests with an error envelope each, without throwing`, async () => {
    let replies = 0;
    await fc.assert(
      fc.asyncProperty(invalidCall, async ({ channel, request }) => {
        const reply = await router.handle(channel, request);
        replies += 1;
        expect(reply.ok).toBe(false);
        if (reply.ok) return;
        expect(BridgeErrorSchema.safeParse(reply.error).success).toBe(true);
        expect(['unknown_channel', 'invalid_request']).toContain(reply.error.code);
        expect(reply.error.message).not.toMatch(/\n\s+at /);
      }),
      { numRuns: ROUTER_FUZZ_RUNS },
    );
    expect(replies).toBe(ROUTER_FUZZ_RUNS);
    expect(internal).toEqual([]);
    // Still serving, and nothing was created along the way.
    expect(await router.handle('app.info', {})).toMatchObject({ ok: true });
    expect(await router.handle('plans.list', {})).toEqual({ ok: true, data: { plans: [] } });
  });
});
