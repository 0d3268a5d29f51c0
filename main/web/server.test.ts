import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import { WebSocket } from 'ws';
import type { StreamEvent } from '../../shared/events';
import { MAX_MESSAGE_BYTES, type ServerMessage } from '../../shared/ws-protocol';
import { planYaml, tempApp, type TempApp } from '../app/test-support';
import { type RunningServer, startServer } from './server';
import { connect, type TestClient, upgradeStatus } from './test-support';

describe('agents serve', () => {
  let t: TempApp;
  let server: RunningServer;
  let rendererDir: string;
  let origin: string;
  const clients: TestClient[] = [];
  const logs: string[] = [];

  const start = async (options: Partial<Parameters<typeof startServer>[0]> = {}) => {
    server = await startServer({ service: t.app.service, rendererDir, dataDir: t.app.dataDir, projectRoots: [t.root], log: (m, e) => logs.push(`${m} ${String(e)}`), ...options });
    origin = `http://127.0.0.1:${server.port}`;
  };
  const open = async () => {
    const client = await connect(server.wsUrl, origin);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    t = await tempApp();
    rendererDir = path.join(t.root, 'renderer');
    mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/app.js"></script>');
    writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'export {}');
    writeFileSync(path.join(rendererDir, 'assets', 'app.css'), 'body{}');
    await start();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await server.close();
    await t.dispose();
  });

  it('binds 127.0.0.1 on a free port and gives a URL with a fresh token', async () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await startServer({ service: t.app.service, rendererDir, log: () => undefined });
    expect(other.token).not.toBe(server.token);
    expect(other.port).not.toBe(server.port);
    await other.close();
  });

  describe('HTTP', () => {
    it('serves the built renderer with content types, a strict CSP and no-referrer', async () => {
      const page = await fetch(`${origin}/?token=${server.token}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port}`);
      expect(csp).not.toMatch(/unsafe/);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(await page.text()).toContain('<title>console</title>');
      expect((await fetch(`${origin}/assets/app.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await fetch(`${origin}/assets/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect((await fetch(`${origin}/plans/01ABC`)).status).toBe(200);
    });

    it('refuses what is not a plain read of a file inside the renderer folder', async () => {
      writeFileSync(path.join(t.root, 'secret.txt'), 'secret');
      expect((await fetch(`${origin}/assets/missing.js`)).status).toBe(404);
      expect((await fetch(`${origin}/%2e%2e/secret.txt`)).status).toBe(404);
      expect((await fetch(`${origin}/..%2fsecret.txt`)).status).toBe(404);
      expect((await fetch(`${origin}/`, { method: 'POST', body: 'x' })).status).toBe(405);
      // The WebSocket address is no file: without its token, a plain read is refused.
      expect((await fetch(`${origin}/ws`)).status).toBe(401);
      expect((await fetch(`${origin}/`, { method: 'HEAD' })).status).toBe(200);
    });

    it('says how to build the console when it is not built, and still serves the API', async () => {
      await server.close();
      rendererDir = path.join(t.root, 'nothing-here');
      await start();
      expect(server.rendererBuilt).toBe(false);
      const page = await fetch(`${origin}/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('npm run build');
      const client = await open();
      expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    });
  });

  describe('Host check (DNS rebinding)', () => {
    /** A raw GET with the Host header we choose (fetch would not let us set it). */
    const get = (host: string, pathname = '/') =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, path: pathname, headers: { host } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    /** A WebSocket upgrade with the right token and Origin, but the Host we choose. */
    const upgradeWithHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(server.wsUrl, { origin: `http://${host}`, headers: { host } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', reject);
      });

    it('answers 421 over HTTP to a Host that is not its own, and serves its own names', async () => {
      for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, `localhost.evil.example:${server.port}`]) {
        const response = await get(host);
        expect([host, response.status]).toEqual([host, 421]);
        expect(response.body).not.toContain('<title>');
      }
      expect((await get(`evil.example:${server.port}`, '/assets/app.js')).status).toBe(421);
      for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) expect([host, (await get(host)).status]).toEqual([host, 200]);
    });

    it('answers 421 to a WebSocket upgrade for a Host that is not its own, even with the token and a matching Origin', async () => {
      expect(await upgradeWithHost(`evil.example:${server.port}`)).toBe(421);
      expect(await upgradeWithHost('evil.example')).toBe(421);
      expect(await upgradeWithHost(`localhost:${server.port}`)).toBe(101);
    });

    it('binds beyond loopback only when remote use is allowed, and then answers only the names given', async () => {
      await expect(startServer({ service: t.app.service, rendererDir, host: '0.0.0.0', log: () => undefined })).rejects.toThrow(/not a loopback address/);
      const remote = await startServer({ service: t.app.service, rendererDir, host: '0.0.0.0', allowRemote: { names: ['box.lan'] }, log: () => undefined });
      try {
        const status = (host: string) =>
          new Promise<number>((resolve, reject) => {
            const req = request({ host: '127.0.0.1', port: remote.port, path: '/', headers: { host } }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            });
            req.on('error', reject);
            req.end();
          });
        expect(await status(`box.lan:${remote.port}`)).toBe(200);
        expect(await status(`127.0.0.1:${remote.port}`)).toBe(200);
        expect(await status(`evil.example:${remote.port}`)).toBe(421);
      } finally {
        await remote.close();
      }
    });
  });

  describe('WebSocket access', () => {
    it('accepts the right token from our own origin', async () => {
      expect(await upgradeStatus(server.wsUrl, origin)).toBe(101);
      expect(await upgradeStatus(server.wsUrl, `http://localhost:${server.port}`)).toBe(101);
    });

    it('refuses a missing or wrong token with 401', async () => {
      const base = `ws://127.0.0.1:${server.port}/ws`;
      expect(await upgradeStatus(base, origin)).toBe(401);
      expect(await upgradeStatus(`${base}?token=`, origin)).toBe(401);
      expect(await upgradeStatus(`${base}?token=wrong`, origin)).toBe(401);
      expect(await upgradeStatus(`${base}?token=${server.token.slice(0, -1)}`, origin)).toBe(401);
      expect(await upgradeStatus(`${base}?token=${server.token}x`, origin)).toBe(401);
    });

    it('answers a plain GET of the WebSocket address with 401 for a wrong token and 426 for the right one, so the console can say which', async () => {
      const base = `${origin}/ws`;
      expect((await fetch(`${base}?token=wrong`)).status).toBe(401);
      expect((await fetch(base)).status).toBe(401);
      const right = await fetch(`${base}?token=${server.token}`);
      expect(right.status).toBe(426);
      expect(right.headers.get('cache-control')).toBe('no-store');
    });

    it('refuses a foreign or missing Origin with 403, even with the right token', async () => {
      for (const foreign of ['http://evil.example', `http://127.0.0.1:${server.port + 1}`, `https://127.0.0.1:${server.port}`, 'null']) {
        expect(await upgradeStatus(server.wsUrl, foreign)).toBe(403);
      }
      expect(await upgradeStatus(server.wsUrl, undefined)).toBe(403);
    });

    it('answers 404 to an upgrade on another path', async () => {
      expect(await upgradeStatus(`ws://127.0.0.1:${server.port}/other?token=${server.token}`, origin)).toBe(404);
    });
  });

  describe('messages', () => {
    it('answers a call with a reply of the same id', async () => {
      const client = await open();
      const reply = await client.call('app.info', {}, 7);
      expect(reply).toMatchObject({ type: 'reply', id: 7, ok: true, data: { dataDir: t.app.dataDir } });
    });

    it.each<[string, string | Buffer, boolean, Partial<ServerMessage>, string]>([
      ['malformed JSON', '{"type":"call",', false, { id: null }, 'invalid_json'],
      ['a binary frame', Buffer.from('{}'), true, { id: null }, 'invalid_message'],
      ['JSON that is no message', '[1,2,3]', false, { id: null }, 'invalid_message'],
      ['an unknown message type', '{"type":"shout","id":4}', false, { id: 4 }, 'invalid_message'],
      ['a call without a channel', '{"type":"call","id":5,"request":{}}', false, { id: 5 }, 'invalid_message'],
      ['an unknown channel', '{"type":"call","id":6,"channel":"plans.explode","request":{}}', false, { id: 6 }, 'unknown_channel'],
      ['an invalid request', '{"type":"call","id":8,"channel":"plans.get","request":{"planId":""}}', false, { id: 8 }, 'invalid_request'],
      ['an unknown plan', '{"type":"call","id":9,"channel":"plans.get","request":{"planId":"NOPE"}}', false, { id: 9 }, 'invalid_request'],
      ['a bad subscription', '{"type":"subscribe","id":10,"subscription":{"planId":3}}', false, { id: 10 }, 'invalid_message'],
      ['an unknown unsubscribe', '{"type":"unsubscribe","id":11}', false, { id: 11 }, 'unknown_subscription'],
    ])('answers %s with an error reply and stays up', async (_name, data, binary, shape, code) => {
      const client = await open();
      client.send(data, binary);
      expect(await client.next()).toMatchObject({ type: 'reply', ok: false, ...shape, error: { code } });
      expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    });

    it('answers an oversized message with message_too_large on the same connection', async () => {
      const client = await open();
      client.send(JSON.stringify({ type: 'call', id: 1, channel: 'app.info', request: { pad: 'x'.repeat(MAX_MESSAGE_BYTES) } }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: null, ok: false, error: { code: 'message_too_large' } });
      expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    });

    it('closes a connection whose message passes the hard limit with 1009, and keeps serving others', async () => {
      const client = await open();
      client.send('x'.repeat(4 * MAX_MESSAGE_BYTES + 1));
      expect((await client.closed).code).toBe(1009);
      const again = await open();
      expect(await again.call('app.info', {})).toMatchObject({ ok: true });
    });
  });

  describe('events', () => {
    const createPlan = async (client: TestClient, steps = 3) => {
      const reply = await client.call('plans.create', { content: planYaml(t.project, { steps }) });
      if (reply.type !== 'reply' || !reply.ok) throw new Error(JSON.stringify(reply));
      return (reply.data as { plan: { id: string } }).plan.id;
    };
    const collect = async (client: TestClient, until: (events: StreamEvent[]) => boolean) => {
      const events: StreamEvent[] = [];
      while (!until(events)) {
        const message = await client.next();
        if (message.type === 'event') events.push(message.event);
      }
      return events;
    };

    it('a project past the size limit: the plan errors with a category, and every client is told', async () => {
      await server.close();
      await t.dispose();
      t = await tempApp({ maxProjectBytes: 4096 });
      writeFileSync(path.join(t.project, 'big.bin'), Buffer.alloc(8192, 1));
      await start();
      const [a, b] = [await open(), await open()];
      const planId = await createPlan(a);
      for (const client of [a, b]) {
        client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId, afterSeq: 0 } }));
        expect(await client.next()).toMatchObject({ type: 'reply', id: 1, ok: true });
      }
      expect(await a.call('plans.run', { planId })).toMatchObject({ ok: true });
      for (const client of [a, b]) {
        const events = await collect(client, (e) => e.some((x) => x.type === 'state_changed' && x.data.to === 'errored'));
        const recorded = events.find((e) => e.type === 'error_recorded');
        expect(recorded?.data).toMatchObject({ category: 'validation', message: expect.stringContaining('is larger than the limit of 4 KiB that a sandbox copies') });
      }
      await t.app.service.idle();
      const plan = await t.app.service.get(planId);
      expect(plan).toMatchObject({ processingState: 'errored', sandboxRefs: [], errorDetails: { category: 'validation' } });
      expect(plan.errorMessage).toMatch(/AGENTS_MAX_PROJECT_BYTES/);
      expect(readdirSync(path.join(t.app.dataDir, 'sandboxes'))).toEqual([]);
      expect(logs.filter((line) => line.includes('run of plan'))).toEqual([]);
    });

    it('replays a plan from afterSeq, then streams the run live, in seq order without gaps', async () => {
      const client = await open();
      const planId = await createPlan(client);
      client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId, afterSeq: 0 } }));
      expect(await client.next()).toEqual({ type: 'reply', id: 1, ok: true, data: { subscriptionId: 1 } });
      expect(await client.call('plans.run', { planId })).toMatchObject({ ok: true });
      const events = await collect(client, (e) => e.some((x) => x.type === 'runtime_execute_complete' || x.type === 'execute_complete'));
      await t.app.service.idle();
      const rest = (await t.app.service.eventsAfter(planId, events.at(-1)!.seq, 1000)).events.length;
      const all = [...events, ...(await collect(client, (e) => e.length === rest))];
      expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
      expect(all[0].type).toBe('plan_created');
    });

    it('sends the events of one turn in one message, and the events a call made before its reply', async () => {
      const client = await open();
      const planId = await createPlan(client);
      client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId, afterSeq: 1 } }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: 1, ok: true });
      for (let i = 0; i < 10; i++) await t.app.service.events.publish(planId, 'execute_step', sampleData('execute_step', { index: i + 1 }));
      const burst = await collect(client, (e) => e.length === 10);
      expect(burst.map((e) => e.seq)).toEqual(burst.map((_, i) => i + 2));
      expect(client.received.at(-1)).toMatchObject({ type: 'events', subscriptionId: 1, events: burst });

      client.send(JSON.stringify({ type: 'call', id: 7, channel: 'plans.discard', request: { planId } }));
      const [cancelled] = await collect(client, (e) => e.length === 1);
      expect(cancelled).toMatchObject({ type: 'state_changed', data: { to: 'cancelled' } });
      expect(await client.next()).toMatchObject({ type: 'reply', id: 7, ok: true });
    });

    it('a slow client is caught up from the database, not dropped', async () => {
      await server.close();
      await start({ congestionBytes: 1 });
      const client = await open();
      const planId = await createPlan(client, 20);
      client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId, afterSeq: 0 } }));
      await client.call('plans.run', { planId });
      await t.app.service.idle();
      const expected = (await t.app.service.eventsAfter(planId, 0, 5000)).events.length;
      const events = await collect(client, (e) => e.length === expected);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    });

    it('follows every plan with a null subscription, and unsubscribes', async () => {
      const client = await open();
      client.send(JSON.stringify({ type: 'subscribe', id: 2, subscription: { planId: null } }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: 2, ok: true });
      client.send(JSON.stringify({ type: 'subscribe', id: 2, subscription: { planId: null } }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: 2, ok: false, error: { code: 'duplicate_subscription' } });
      const planId = await createPlan(client);
      const [created] = await collect(client, (e) => e.length === 1);
      expect(created).toMatchObject({ planId, seq: 1, type: 'plan_created' });
      client.send(JSON.stringify({ type: 'unsubscribe', id: 2 }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: 2, ok: true });
      await createPlan(client);
      await expect(client.next(300)).rejects.toThrow(/timeout/);
    });

    it('refuses a subscription to an unknown plan', async () => {
      const client = await open();
      client.send(JSON.stringify({ type: 'subscribe', id: 3, subscription: { planId: 'NOPE', afterSeq: 0 } }));
      expect(await client.next()).toMatchObject({ type: 'reply', id: 3, ok: false, error: { code: 'invalid_request', field: 'planId' } });
    });
  });

  it('close() ends every connection with 1001 and stops accepting', async () => {
    const client = await open();
    await server.close();
    expect((await client.closed).code).toBe(1001);
    await expect(fetch(`${origin}/`)).rejects.toThrow();
  });
});
