import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, openConsole } from './helpers';

test('the tab title counts the plans that need the operator, live', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const ready = await createPlan(cli, join(examples, 'add-license.yaml'));
  expect((await cli(['plan', 'run', ready])).code).toBe(0);
  await openConsole(page, url);
  await expect(page).toHaveTitle('(1) CleverAgents');
  // A failure from another process counts as it happens.
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await expect(page).toHaveTitle('(2) CleverAgents');
  expect((await cli(['plan', 'discard', failed])).code).toBe(0);
  expect((await cli(['plan', 'apply', ready])).code).toBe(0);
  await expect(page).toHaveTitle('CleverAgents');
});

test.describe('browser notifications', () => {
  test.use({ permissions: ['notifications'] });

  test('once turned on in Settings, a plan that fails elsewhere is announced, and a click opens it; the plan in view, ready to apply, is not; an approval elsewhere is', async ({ page, agentsConsole }) => {
    // The page's Notification constructor, observed: each notification's body is recorded.
    await page.addInitScript(() => {
      const Real = window.Notification;
      const seen: string[] = [];
      const shown: Notification[] = [];
      Object.assign(window, { notified: seen, shownNotifications: shown });
      window.Notification = class extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          seen.push(options?.body ?? '');
          shown.push(this);
        }
      } as typeof Notification;
    });
    const { cli, examples, url } = agentsConsole;
    const inView = await createPlan(cli, join(examples, 'add-license.yaml'));
    await openConsole(page, url);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('checkbox', { name: 'Notify me in this browser when a plan needs me' }).check();
    await expect(dialog.getByRole('checkbox', { name: 'Notify me in this browser when a plan needs me' })).toBeChecked();
    await dialog.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^add-license\b/ }).click();

    const notified = () => page.evaluate(() => [...(window as unknown as { notified: string[] }).notified]);
    const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
    expect((await cli(['plan', 'run', failed])).code).toBe(1);
    await expect.poll(notified).toEqual(['broken-docs: Failed']);
    expect((await cli(['plan', 'run', inView])).code).toBe(0);
    await expect(page).toHaveTitle('(2) CleverAgents');
    expect(await notified()).toEqual(['broken-docs: Failed']);

    // The operator clicks the notification: the console shows the failed plan.
    await expect(page.getByTestId('plan-name')).toHaveText('add-license');
    await page.evaluate(() => (window as unknown as { shownNotifications: Notification[] }).shownNotifications[0]!.dispatchEvent(new Event('click')));
    await expect(page.getByTestId('plan-name')).toHaveText('broken-docs');

    // A plan that starts to wait for an approval elsewhere is announced too.
    const supervised = join(examples, 'supervised.yaml');
    writeFileSync(supervised, 'name: supervised\nproject: ./demo-project\nautomationProfile: supervised\ndefinitionOfDone:\n  - step: Run the tests\n    tools:\n      - { tool: shell.run, args: { command: "node tests/greet.test.js" } }\n');
    const waiting = await createPlan(cli, supervised);
    expect((await cli(['plan', 'run', waiting])).code).toBe(3);
    await expect.poll(notified).toEqual(['broken-docs: Failed', 'supervised: Waiting for approval']);
  });
});

test.describe('notifications in Settings', () => {
  test.use({ permissions: ['notifications'] });

  test('the webhook is set in Settings and shown with its secrets hidden; a kind turned off there is sent neither to it nor by the browser', async ({ page, agentsConsole }) => {
    const received: { text: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as { text: string });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/T0K3N-secret?key=QSECRET`;
    await page.addInitScript(() => {
      const Real = window.Notification;
      const seen: string[] = [];
      Object.assign(window, { notified: seen });
      window.Notification = class extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          seen.push(options?.body ?? '');
        }
      } as typeof Notification;
    });
    try {
      const { cli, examples, url } = agentsConsole;
      await openConsole(page, url);
      await page.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByRole('checkbox', { name: 'Notify me in this browser when a plan needs me' }).check();
      await dialog.getByLabel('Webhook URL').fill(hook);
      await dialog.getByRole('button', { name: 'Save webhook' }).click();
      // The section's own status line: other sections of Settings have theirs.
      const notifications = dialog.getByRole('region', { name: 'Notifications' });
      await expect(notifications.getByRole('status')).toHaveText('Webhook saved.');
      await expect(dialog.getByText(/^Set: http:\/\/127\.0\.0\.1:\d+\/hooks\//)).toBeVisible();
      await expect(dialog).not.toContainText('T0K3N');
      await expect(dialog).not.toContainText('QSECRET');
      await dialog.getByRole('checkbox', { name: 'Ready to apply' }).uncheck();
      await expect(notifications.getByRole('status')).toHaveText('Ready to apply: off.');
      expect((await cli(['config', 'get', 'notifyReady'])).stdout.trim()).toBe('off');
      await dialog.getByRole('button', { name: 'Close settings' }).click();

      // The CLI's runs post to the webhook the console set: the failure, not the plan ready to apply.
      const ready = await createPlan(cli, join(examples, 'add-license.yaml'));
      expect((await cli(['plan', 'run', ready])).code).toBe(0);
      const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
      expect((await cli(['plan', 'run', failed])).code).toBe(1);
      expect(received.map((message) => message.text)).toEqual(['broken-docs failed']);
      await expect(page).toHaveTitle('(2) CleverAgents');
      await expect.poll(() => page.evaluate(() => [...(window as unknown as { notified: string[] }).notified])).toEqual(['broken-docs: Failed']);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
