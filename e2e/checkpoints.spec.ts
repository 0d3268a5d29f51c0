import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { changedFile, createPlan, openConsole, planHeader, planOption, seriousViolations, shot, stepItems } from './helpers';

/** README.md, "Checkpoints": the console's checkpoints on the tree, Rewind behind its confirmation, and a rewind from the CLI shown live. */
test('an operator rewinds a run plan from the tree, runs it again, and sees a rewind from the CLI live', async ({ page, agentsConsole }) => {
  test.slow();
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  const ran = await cli(['plan', 'run', planId]);
  expect(ran.code, ran.stderr).toBe(0);
  const { sandboxRefs } = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };
  // The operator's own edit in the sandbox, after the plan ran: a rewind undoes it too, and says so.
  appendFileSync(join(sandboxRefs[0], 'README.md'), '\nA note of my own.\n');

  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const header = planHeader(page, 'add-license');
  await expect(header.getByText('Ready to apply')).toBeVisible();
  const steps = stepItems(page);
  await expect(steps).toHaveCount(6);
  // A checkpoint before each step: when it was taken, and the files changed since the one before.
  const marked = steps.filter({ has: page.getByTestId('tree-checkpoint') });
  await expect(marked).toHaveCount(6);
  await expect(steps.nth(0)).toHaveAccessibleName(/Checkpoint at \d\d:\d\d:\d\d · \d+ files changed/);
  await expect(steps.nth(1)).toHaveAccessibleName(/Checkpoint at \d\d:\d\d:\d\d · 1 file changed/);

  await steps.nth(1).click();
  const details = page.getByRole('complementary', { name: 'Decision details' });
  const checkpoint = details.getByRole('region', { name: 'Checkpoint before step 2' });
  await expect(checkpoint).toContainText('1 file since the previous checkpoint');
  await shot(page, 'checkpoints-tree');
  expect(await seriousViolations(page), 'tree and checkpoint').toEqual([]);

  await checkpoint.getByRole('group', { name: 'Step 2 actions' }).getByRole('button', { name: 'Rewind to before this step' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind to before step 2?' });
  await expect(dialog).toContainText('Mention the licence in the README');
  const files = dialog.getByRole('list', { name: 'Files the rewind changes' }).getByRole('listitem');
  await expect(files).toHaveCount(4);
  await expect(files.filter({ hasText: 'README.md' })).toHaveText(/^put back README\.md\s*your edit$/);
  await expect(files.filter({ hasText: 'lib/greet.js' })).toHaveText(/^removed lib\/greet\.js$/);
  await expect(files.filter({ hasText: 'src/greet.js' })).toHaveText(/^brought back src\/greet\.js$/);
  await expect(files.filter({ hasText: 'tests/greet.test.js' })).toHaveText(/^put back tests\/greet\.test\.js$/);
  await expect(dialog).toContainText('Your own edits to 1 file after that point are undone too');
  // Cancel has the focus: a rewind undoes work.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await shot(dialog, 'rewind-dialog');
  expect(await seriousViolations(page), 'rewind confirmation').toEqual([]);

  await dialog.getByRole('button', { name: 'Rewind to before step 2' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(header.getByText('Ready to run', { exact: true })).toBeVisible();
  await expect(steps.nth(0).getByRole('img', { name: 'done' })).toBeVisible();
  for (let i = 1; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'pending' })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: /Rewound to before step 2 \(from the end\)/ })).toBeVisible();
  await expect(marked).toHaveCount(2);
  await expect(header).toContainText('stale: they run again before apply');
  // A step that has not started again has no checkpoint: its Rewind is off, and says why.
  await steps.nth(2).click();
  const notStarted = details.getByRole('button', { name: 'Rewind to before this step' });
  await expect(notStarted).toBeDisabled();
  await expect(notStarted).toHaveAccessibleDescription('step 3 has not started yet: there is no checkpoint to rewind to');
  await steps.nth(1).click();
  await expect(details.getByRole('listitem').filter({ hasText: 'modify README.md' })).toHaveText(/^modify README\.md \+2 −0 rewound$/);
  await shot(page, 'checkpoints-tree-rewound');
  expect(readFileSync(join(sandboxRefs[0], 'README.md'), 'utf8')).not.toContain('A note of my own.');
  await page.getByRole('tab', { name: 'Changes, 1' }).click();
  await expect(changedFile(page, 'LICENSE')).toBeVisible();
  await expect(changedFile(page, 'README.md')).toHaveCount(0);
  await shot(page, 'checkpoints-rewound');

  // Run again: the steps from 2 on run, and the plan is ready to apply with all its changes.
  await page.getByRole('tab', { name: /^Decisions/ }).click();
  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: 'Run', exact: true }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible({ timeout: 30_000 });
  for (let i = 0; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();
  await expect(marked).toHaveCount(6);
  await expect(page.getByRole('tab', { name: 'Changes, 4' })).toBeVisible();

  // A rewind from the command line, in another process, shows in the open console without a reload.
  const fromCli = await cli(['plan', 'rewind', planId, '--to-step', '5']);
  expect(fromCli.code, fromCli.stderr).toBe(0);
  await expect(header.getByText('Ready to run', { exact: true })).toBeVisible();
  for (let i = 0; i < 4; i++) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();
  for (let i = 4; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'pending' })).toBeVisible();
  await expect(marked).toHaveCount(5);
  await expect(page.getByRole('treeitem', { name: /Rewound to before step 5/ })).toBeVisible();

  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: 'Run', exact: true }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible({ timeout: 30_000 });
  for (let i = 0; i < 6; i++) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();
});
