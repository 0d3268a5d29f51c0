import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planHeader, planOption } from './helpers';

// Run on both transports (playwright.config.ts): a refusal reaches the page as the same plain
// failure over the WebSocket and over the preload's IPC, and the console reads it by its shape.

test('a refused setting shows the host’s sentence, not "[object Object]"', async ({ page, agentsConsole }) => {
  await openConsole(page, agentsConsole.url);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Model (provider:model)').fill('no-provider-here');
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  const refusal = dialog.getByRole('alert');
  await expect(refusal).toContainText('model');
  await expect(refusal).not.toContainText('[object Object]');
});

test('an action refused on a stale view says where the plan really is and refreshes the view', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  await page.clock.install();
  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const header = planHeader(page, 'add-license');
  await expect(header.getByText('Ready to run', { exact: true })).toBeVisible();

  // The page's clock stops, so the events of the run below wait unapplied: the view goes stale.
  await page.clock.pauseAt(Date.now() + 1000);
  const run = await cli(['plan', 'run', planId]);
  expect(run.code, run.stderr).toBe(0);
  await header.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Step refused: the plan is Ready to apply now. The view has been refreshed.' })).toBeVisible();
  await expect(header.getByText('Ready to apply', { exact: true })).toBeVisible();
  await page.clock.resume();
});
