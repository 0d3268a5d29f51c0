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
