import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planOption, seriousViolations } from './helpers';

test('axe finds nothing serious on the plan list, the tree, the changes, the failure card and the approval card', async ({ page, agentsConsole }) => {
  // Each axe pass takes seconds on a small machine.
  test.setTimeout(180_000);
  const { cli, examples, url } = agentsConsole;
  const done = await createPlan(cli, join(examples, 'add-license.yaml'));
  expect((await cli(['plan', 'run', done])).code).toBe(0);
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await createPlan(cli, join(examples, 'flaky-network.yaml'));
  await openConsole(page, url);

  await expect(planOption(page, 'add-license')).toBeVisible();
  expect(await seriousViolations(page), 'plan list').toEqual([]);

  await planOption(page, 'add-license').click();
  await expect(page.getByRole('tree', { name: 'Decision tree' }).getByRole('treeitem').first()).toBeVisible();
  expect(await seriousViolations(page), 'decision tree').toEqual([]);

  await page.getByRole('tab', { name: 'Changes, 4' }).click();
  await expect(page.getByRole('list', { name: 'Diff of LICENSE' })).toBeVisible();
  expect(await seriousViolations(page), 'changes').toEqual([]);
  await page.getByRole('button', { name: 'Side by side' }).click();
  await expect(page.getByRole('button', { name: 'Side by side' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('list', { name: 'Diff of LICENSE' })).toBeVisible();
  expect(await seriousViolations(page), 'side-by-side diff').toEqual([]);
  await page.getByRole('button', { name: 'Apply all' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  expect(await seriousViolations(page), 'apply confirmation').toEqual([]);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await planOption(page, 'broken-docs').click();
  const card = page.getByRole('region', { name: /failed/ });
  await expect(card.getByLabel('Category')).toHaveText('tool');
  expect(await seriousViolations(page), 'failure card').toEqual([]);

  // A supervised plan run from the CLI stops at its first shell call, waiting for approval (exit 3).
  const supervised = join(examples, 'supervised.yaml');
  writeFileSync(supervised, 'name: supervised\nproject: ./demo-project\nautomationProfile: supervised\ndefinitionOfDone:\n  - step: Run the tests\n    tools:\n      - { tool: shell.run, args: { command: "node tests/greet.test.js" } }\n');
  const waiting = await createPlan(cli, supervised);
  expect((await cli(['plan', 'run', waiting])).code).toBe(3);
  await expect(planOption(page, 'supervised')).toContainText('needs attention');
  await planOption(page, 'supervised').click();
  await expect(page.getByRole('region', { name: /^Approval needed/ })).toBeVisible();
  expect(await seriousViolations(page), 'approval card').toEqual([]);

  await planOption(page, 'flaky-network').click();
  await page.getByRole('tab', { name: 'Decisions' }).click();
  await expect(page.getByRole('region', { name: 'Before Run' })).toBeVisible();
  expect(await seriousViolations(page), 'a plan before its run').toEqual([]);
});
