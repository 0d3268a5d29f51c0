import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, createPlanForm, createPlanWithPicker, openConsole, planHeader, planOption, shot, stepItems } from './helpers';

/** Adds the section the broken-docs plan expects, in the plan's sandbox: the operator's fix. */
async function fixBrokenDocs(cli: (args: string[]) => Promise<{ stdout: string }>, planId: string) {
  const plan = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };
  const readme = join(plan.sandboxRefs[0], 'README.md');
  writeFileSync(readme, `${readFileSync(readme, 'utf8')}\n## Configuration\n`);
}

test('an operator steps through the demo plan, reads a diff in both modes, and applies it', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  await createPlan(cli, join(examples, 'add-license.yaml'));
  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const header = planHeader(page, 'add-license');
  await expect(page.getByRole('region', { name: 'Before Run' })).toBeVisible();
  await expect(header.getByText('Keep the greet() function signature unchanged')).toBeVisible();
  await shot(page, 'before-run');

  // Step starts the plan in step mode: it pauses before the first decision.
  await header.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(header.getByText('Paused', { exact: true })).toBeVisible();
  const steps = stepItems(page);
  await expect(steps).toHaveCount(6);
  await expect(steps.nth(0).getByRole('img', { name: 'pending' })).toBeVisible();

  await header.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(steps.nth(0).getByRole('img', { name: 'done' })).toBeVisible();
  await expect(steps.nth(1).getByRole('img', { name: 'pending' })).toBeVisible();
  await expect(header.getByText('Paused', { exact: true })).toBeVisible();
  await header.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(steps.nth(1).getByRole('img', { name: 'done' })).toBeVisible();
  await expect(header.getByText('2 of 6 steps done')).toBeVisible();
  await shot(page, 'step-mode');

  await header.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await expect(steps.nth(5).getByRole('img', { name: 'done' })).toBeVisible();
  await shot(page, 'decision-tree');

  await page.getByRole('tab', { name: 'Changes, 4' }).click();
  await page.getByRole('button', { name: 'README.md', exact: true }).click();
  const diff = page.getByRole('list', { name: 'Diff of README.md' });
  await expect(diff.getByRole('listitem').filter({ hasText: /added, line 3: .*MIT licensed/ })).toBeVisible();
  await shot(page, 'diff-unified');
  await page.getByRole('button', { name: 'Side by side' }).click();
  await expect(page.getByRole('button', { name: 'Side by side' })).toHaveAttribute('aria-pressed', 'true');
  await expect(diff.getByRole('listitem').filter({ hasText: /After: added, line 3: .*MIT licensed/ })).toBeVisible();
  await shot(page, 'diff-side-by-side');

  await header.getByRole('button', { name: 'Apply', exact: true }).click();
  await page.getByRole('dialog', { name: 'Apply 4 files to the project?' }).getByRole('button', { name: 'Write 4 files' }).click();
  await expect(header.getByText('Applied', { exact: true })).toBeVisible();
  expect(readFileSync(join(examples, 'demo-project/README.md'), 'utf8')).toContain('MIT licensed');
});

test('an operator opens a failed plan, reads the failure card, fixes the cause and retries', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  await openConsole(page, url);
  await expect(planOption(page, 'broken-docs')).toContainText('needs attention');
  await planOption(page, 'broken-docs').click();
  const card = page.getByRole('region', { name: /failed/ });
  await expect(card.getByLabel('Category')).toHaveText('tool');
  await expect(card.getByText('Fix the cause')).toBeVisible();
  await expect(card.getByText(`agents plan retry ${planId}`)).toBeVisible();
  await expect(card.getByRole('list').filter({ hasText: 'gave up' }).getByRole('listitem')).toHaveCount(1);
  await shot(page, 'failure-card');

  await fixBrokenDocs(cli, planId);
  await card.getByRole('button', { name: 'Retry from the failed step' }).click();
  const header = planHeader(page, 'broken-docs');
  await expect(header.getByText('Ready to apply')).toBeVisible();
  const steps = stepItems(page);
  for (let i = 0; i < 3; i += 1) await expect(steps.nth(i).getByRole('img', { name: 'done' })).toBeVisible();
  await expect(page.getByRole('region', { name: /failed/ })).toHaveCount(0);
});

test('keyboard only: reach the failure with n and retry it with r', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  await createPlan(cli, join(examples, 'add-license.yaml'));
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await openConsole(page, url);

  await page.keyboard.press('n');
  const header = planHeader(page, 'broken-docs');
  await expect(header).toBeVisible();
  await expect(page.getByRole('treeitem', { selected: true }).getByRole('img', { name: 'failed' })).toBeVisible();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await shot(page, 'help-sheet');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);

  await fixBrokenDocs(cli, failed);
  await page.keyboard.press('r');
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await shot(page, 'plans-list');
});

test('an operator creates a plan from a file with the file picker; a bad file gets a one-line error', async ({ page, agentsConsole, transport }) => {
  test.skip(transport === 'desktop', "the desktop app picks a plan file with its native dialog, which creates the plan at once: there is no form");
  const { examples, url } = agentsConsole;
  await openConsole(page, url);
  await expect(page.getByText('No plans yet — create one from a plan file.')).toBeVisible();
  await shot(page, 'empty-state');
  const pick = (name: string, text: string) => createPlanWithPicker(page, { name, mimeType: 'text/yaml', buffer: Buffer.from(text) });
  await pick('bad.yaml', 'definitionOfDone: "- a"\n');
  await expect(createPlanForm(page).getByRole('alert')).toContainText('name');
  await createPlanForm(page).getByRole('button', { name: 'Cancel' }).click();
  const text = readFileSync(join(examples, 'add-license.yaml'), 'utf8').replace('project: ./demo-project', '');
  await pick('add-license.yaml', text);
  await expect(planOption(page, 'add-license')).toBeVisible();
  await expect(createPlanForm(page)).toHaveCount(0);
});

test('a console address with a wrong token, or none, says so at once instead of reconnecting over an empty list', async ({ page, agentsConsole, transport }) => {
  test.skip(transport === 'desktop', 'the desktop app has no address and no token: its page reaches the host over IPC');
  const wrong = agentsConsole.url.replace(/token=[^&]+/, 'token=not-the-token');
  await page.goto(wrong);
  const refused = page.getByRole('alert').filter({ hasText: 'This address has a wrong access token.' });
  await expect(refused).toBeVisible();
  await expect(refused).toContainText('Open the address agents serve printed');
  await expect(page.getByText('Loading plans…')).toHaveCount(0);
  await expect(page.getByText(/Create a plan/)).toHaveCount(0);
  await expect(page.getByText(/reconnecting/)).toHaveCount(0);
  await shot(page, 'wrong-token');

  // A fresh tab without any token (nothing kept from the last one) is told the same way.
  const bare = await page.context().newPage();
  await bare.goto(new URL(agentsConsole.url).origin);
  await expect(bare.getByRole('alert').filter({ hasText: 'This address has no access token.' })).toBeVisible();
});
