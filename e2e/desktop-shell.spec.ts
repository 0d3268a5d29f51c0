import { join } from 'node:path';
import { blurNativeWindow, chooseInNativeMenu, clickNativeNotification, nativeNotifications } from '../tests/support/electron-ipc-stand-in.cjs';
import { expect, test } from './fixtures';
import { createPlan, openConsole } from './helpers';

// The desktop app only (playwright.config.ts): its system notifications, window title and menu, through the Electron stand-in.
test('the desktop app announces a plan that fails while its window is away, and the click opens that plan in the window', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const first = await createPlan(cli, join(examples, 'add-license.yaml'));
  await openConsole(page, url);
  await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^add-license\b/ }).click();
  await expect(page.getByTestId('plan-name')).toHaveText('add-license');

  // While the window has the focus, nothing is shown; once the operator is elsewhere, the failure is.
  expect((await cli(['plan', 'run', first])).code).toBe(0);
  // The window's title (Electron takes the page's) names the open plan.
  await expect(page).toHaveTitle('(1) add-license — CleverAgents');
  await blurNativeWindow(url);
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await expect.poll(() => nativeNotifications(url)).toEqual([{ title: 'CleverAgents', body: 'broken-docs failed' }]);

  await clickNativeNotification(url, 0);
  await expect(page.getByTestId('plan-name')).toHaveText('broken-docs');
  await expect(page).toHaveTitle('(2) broken-docs — CleverAgents');
});

test("the desktop app's menu holds the console's actions with their keys: choosing one acts in the window", async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const ready = await createPlan(cli, join(examples, 'add-license.yaml'));
  expect((await cli(['plan', 'run', ready])).code).toBe(0);
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await openConsole(page, url);
  await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^add-license\b/ }).click();
  await expect(page.getByTestId('plan-name')).toHaveText('add-license');

  await chooseInNativeMenu(url, ['Plan', 'Next failure']);
  await expect(page.getByTestId('plan-name')).toHaveText('broken-docs');
  await chooseInNativeMenu(url, ['Help', 'Keyboard shortcuts']);
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
});
