import { join } from 'node:path';
import { expect, test } from './fixtures';
import { changedFile, createPlan, openConsole, planHeader, planOption, seriousViolations, shot, stepItems } from './helpers';

/** README.md, "Fork and compare": Fork from here on a step, the two plans naming each other, and the compare view. */
test('an operator forks a run plan from a step, runs the fork, and compares the two runs', async ({ page, agentsConsole }) => {
  test.slow();
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  const ran = await cli(['plan', 'run', planId]);
  expect(ran.code, ran.stderr).toBe(0);

  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const origin = page.getByTestId('plan-view');
  await expect(origin).toHaveAttribute('data-plan-id', planId);
  await expect(planHeader(page, 'add-license').getByText('Ready to apply')).toBeVisible();
  const steps = stepItems(page);
  await steps.nth(2).click();
  const details = page.getByRole('complementary', { name: 'Decision details' });
  const actions = details.getByRole('group', { name: 'Step 3 actions' });
  await expect(actions.getByRole('button', { name: 'Rewind to before this step' })).toBeEnabled();
  await actions.getByRole('button', { name: 'Fork from here' }).click();

  const dialog = page.getByRole('dialog', { name: 'Fork from step 3?' });
  await expect(dialog).toContainText('Use a template string in the greeting');
  await expect(dialog).toContainText('The 2 steps before it are shared with this plan, not run again.');
  await expect(dialog.getByTestId('fork-checkpoint')).toContainText('after the steps before it changed 2 files');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await dialog.getByLabel('Automation profile').selectOption('full-auto');
  await shot(dialog, 'fork-dialog');
  expect(await seriousViolations(page), 'fork confirmation').toEqual([]);
  await dialog.getByRole('button', { name: 'Fork from step 3' }).click();
  await expect(dialog).toHaveCount(0);

  // The fork is open, not run: its header names its origin.
  await expect(origin).not.toHaveAttribute('data-plan-id', planId);
  const forkId = await origin.getAttribute('data-plan-id');
  const header = page.getByTestId('plan-header');
  await expect(header.getByText('Ready to run', { exact: true })).toBeVisible();
  await expect(header.getByTestId('forked-from')).toHaveText(/^Forked from add-license at step 3\s*Compare with add-license$/);
  await expect(header.getByText('full-auto', { exact: true })).toBeVisible();
  await shot(header, 'fork-header');
  for (let i = 0; i < 2; i++) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();
  for (let i = 2; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'pending' })).toBeVisible();

  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: 'Run', exact: true }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible({ timeout: 30_000 });
  for (let i = 0; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();

  // The operator's own edit in the fork: README.md now ends differently in the two runs.
  await page.getByRole('tab', { name: /^Changes/ }).click();
  await changedFile(page, 'README.md').click();
  await page.getByRole('button', { name: 'Edit README.md' }).click();
  await expect(page.getByRole('textbox', { name: 'Text of README.md' })).toBeFocused();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nForked to try another profile.\n');
  await page.keyboard.press('Control+S');
  await expect(page.getByRole('status').filter({ hasText: 'Saved README.md in the sandbox' }).first()).toBeVisible();

  // Compare, from the keyboard.
  const compareButton = header.getByRole('button', { name: 'Compare with add-license' });
  await compareButton.focus();
  await page.keyboard.press('Enter');
  const compare = page.getByRole('dialog', { name: 'Compare add-license with its origin' });
  await expect(compare).toHaveAttribute('data-state', 'loaded');
  await expect(compare.getByRole('button', { name: 'Close' })).toBeFocused();
  const facts = compare.getByRole('table', { name: 'The two runs' });
  await expect(facts.getByRole('columnheader', { name: `This plan ${forkId}` })).toBeVisible();
  await expect(facts.getByRole('columnheader', { name: `Its origin ${planId}` })).toBeVisible();
  await expect(facts.getByRole('row', { name: /^Steps done/ })).toHaveText(/^Steps done6 of 66 of 6$/);
  await expect(facts.getByRole('row', { name: /^Tool calls/ })).toHaveText(/^Tool calls(\d+)(\d+)$/);
  await expect(facts.getByRole('row', { name: /^Time running/ })).toBeVisible();
  await expect(facts.getByRole('row', { name: /^Cost/ })).toBeVisible();
  const both = compare.getByRole('group', { name: 'Files changed by both' });
  await expect(both.getByRole('button', { name: /^LICENSE · same result$/ })).toBeVisible();
  await expect(both.getByRole('button', { name: /^README\.md · differs \+0 −2$/ })).toHaveAttribute('aria-pressed', 'true');
  // From the first run's result (the fork, open) to the second's: the origin has no such line.
  const diff = compare.getByRole('list', { name: 'Diff of README.md' });
  await expect(diff.getByRole('listitem').filter({ hasText: /removed, line \d+:.*Forked to try another profile\.$/ })).toBeVisible();
  await shot(compare, 'compare-view');
  expect(await seriousViolations(page), 'compare view').toEqual([]);
  await page.keyboard.press('Escape');
  await expect(compare).toHaveCount(0);

  // The origin names its fork, and opens it.
  await header.getByRole('button', { name: /^Open plan add-license/ }).click();
  await expect(origin).toHaveAttribute('data-plan-id', planId);
  const forkRef = page.getByTestId('fork-ref');
  await expect(forkRef).toHaveText(/^Fork at step 3: add-license\s*Compare with add-license$/);
});
