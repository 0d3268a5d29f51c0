import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import type { WebhookMessage } from '../../main/app/notify/webhook';
import { Team, writeSettings } from './team-harness';

/** A webhook receiver on 127.0.0.1 answering each post with the next of `statuses`, then 200. */
async function receiver(statuses: number[]) {
  const received: { message: WebhookMessage; answered: number }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const answered = statuses.shift() ?? 200;
      received.push({ message: JSON.parse(body) as WebhookMessage, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode: the webhook'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  let hook: Awaited<ReturnType<typeof receiver>> | undefined;
  afterEach(async () => {
    await team?.dispose();
    await hook?.close();
  });

  it('is posted once by the worker that ran the step, retried after a 500, and not again by the console or the CLI that follow the run', async () => {
    hook = await receiver([500]);
    const settings = { notify: { webhook: hook.url } };
    // Every process of the team has the webhook set: only the one that commits the event posts it.
    team = new Team(database.url(), { AGENTS_NOTIFY_RETRY_MS: '100' });
    writeSettings(team.clientHome, settings);
    const worker = await team.worker('worker-a', { settings });
    await team.serve({ settings });
    const project = join(team.base, 'project');
    mkdirSync(project);
    const file = join(team.base, 'hooked.yaml');
    writeFileSync(
      file,
      [
        'name: hooked',
        `project: ${JSON.stringify(project)}`,
        'automationProfile: trusted',
        'definitionOfDone:',
        '  - step: Write a file',
        '    tools: [{ tool: file.write, args: { path: out.txt, content: "done\\n" } }]',
        '',
      ].join('\n'),
    );
    const id = await team.create(file);
    const run = await team.agents(['plan', 'run', id]);
    expect(run.code, run.stderr).toBe(0);
    await team.allReadyToApply([id], 60_000);
    expect(worker.ran().has(id), worker.log()).toBe(true);
    await team.until('the retried post', 10_000, async () => (hook!.received.length >= 2 ? true : undefined), 100);
    // Longer than the backoff of a third attempt: nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const expected = { text: 'hooked is ready to apply', planId: id, planName: 'hooked', status: 'Ready to apply', reason: 'is ready to apply', url: null };
    expect(hook.received).toEqual([
      { message: expected, answered: 500 },
      { message: expected, answered: 200 },
    ]);
  });
});
