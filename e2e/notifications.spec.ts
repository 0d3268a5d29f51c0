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

  test('once turned on in Settings, a plan that fails elsewhere is announced, and a click opens it; the plan in view, ready to apply, is not', async ({ page, agentsConsole }) => {
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
  });
});
