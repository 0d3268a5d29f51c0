import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planYaml, tempApp, type TempApp, waitFor } from '../test-support';
import type { WebhookMessage } from './webhook';

/** A webhook receiver on 127.0.0.1 that answers each post with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const received: WebhookMessage[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as WebhookMessage);
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0K3N-secret-value?key=QSECRET`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('the webhook', () => {
  let temp: TempApp;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeEach(async () => {
    process.env.AGENTS_NOTIFY_RETRY_MS = '20';
    temp = await tempApp();
  });
  afterEach(async () => {
    delete process.env.AGENTS_NOTIFY_RETRY_MS;
    await temp.dispose();
    await hook.close();
  });

  async function runPlan(options: { failAt?: number } = {}) {
    const file = path.join(temp.root, 'plan.yaml');
    writeFileSync(file, planYaml(temp.project, { name: 'hooked', ...options }));
    const plan = await temp.app.service.createFromFile(file);
    await temp.app.service.run(plan.id);
    await temp.app.service.idle();
    return plan.id;
  }

  it('posts {text, planId, planName, status, reason, url} once when a plan becomes ready to apply, and nothing for the steps before', async () => {
    hook = await receiver();
    temp.app.settings.patch({ notify: { webhook: hook.url } });
    const planId = await runPlan();
    await waitFor(() => hook.received.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.received).toEqual([{ text: 'hooked is ready to apply', planId, planName: 'hooked', status: 'Ready to apply', reason: 'is ready to apply', url: null }]);
  });

  it('retries after a 500 with backoff, and posts a failure once it goes through', async () => {
    hook = await receiver([500, 503]);
    temp.app.settings.patch({ notify: { webhook: hook.url } });
    const planId = await runPlan({ failAt: 1 });
    await waitFor(() => hook.received.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received).toHaveLength(3);
    for (const message of hook.received) expect(message).toMatchObject({ planId, text: 'hooked failed', status: 'Failed' });
  });

  it('sends nothing without a webhook, and its address is shown with its secrets hidden', async () => {
    hook = await receiver();
    await runPlan();
    expect(hook.received).toEqual([]);
    const { CONFIG_SETTINGS } = await import('../settings');
    temp.app.settings.patch(CONFIG_SETTINGS.notifyWebhook.patch(hook.url));
    const shown = String(CONFIG_SETTINGS.notifyWebhook.value(temp.app.settings.read()));
    expect(shown).not.toContain('T0K3N');
    expect(shown).not.toContain('QSECRET');
    expect(shown).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\//);
  });

  it('is set from the console, shown there with its secrets hidden, skips a kind turned off, and is removed with an empty address', async () => {
    hook = await receiver();
    const view = temp.app.service.updateSettings({ notify: { webhook: hook.url, ready: false } });
    expect(view.notify).toMatchObject({ ready: false, failed: true, approval: true, checksFailed: true, desktop: true, terminal: true });
    expect(view.notify.webhook).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\//);
    expect(view.notify.webhook).not.toContain('T0K3N');
    expect(view.notify.webhook).not.toContain('QSECRET');
    await runPlan();
    await runPlan({ failAt: 1 });
    await waitFor(() => hook.received.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.received.map((message) => message.text)).toEqual(['hooked failed']);
    expect(temp.app.service.updateSettings({ notify: { webhook: '' } }).notify.webhook).toBeNull();
    expect(temp.app.settings.read().notify).toEqual({ ready: false });
  });
});
