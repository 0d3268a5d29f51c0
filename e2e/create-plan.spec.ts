import AxeBuilder from '@axe-core/playwright';
import { cpSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlanForm, openConsole, planHeader, planOption, shot } from './helpers';

// The console serves projects from a folder of this test's own, where it puts the demo project.
test.use({ ownProjectRoot: true });

test('an operator uploads an example plan, sees its project folder found in the project root, fixes a wrong folder, creates the plan and runs it', async ({
  page,
  agentsConsole,
}) => {
  const { examples, projectRoot, url } = agentsConsole;
  cpSync(join(examples, 'demo-project'), join(projectRoot, 'demo-project'), { recursive: true });
  const root = realpathSync(projectRoot);
  const demo = join(root, 'demo-project');
  await openConsole(page, url);

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Create plan' }).click();
  await (await chooser).setFiles(join(examples, 'add-license.yaml'));
  const form = createPlanForm(page);
  const folder = form.getByLabel('Project folder');
  // The plan's `./demo-project` is relative to a file the browser does not have: found under the root.
  await expect(folder).toHaveValue(demo);
  await expect(form.getByText(`Found: ${demo}`)).toBeVisible();
  await expect(folder).toHaveAttribute('aria-invalid', 'false');
  await shot(form, 'create-plan-form');
  const { violations } = await new AxeBuilder({ page }).include('[role="dialog"]').analyze();
  expect(violations.map((v) => v.id)).toEqual([]);

  await folder.fill('demo-projekt');
  await expect(form.getByText(`not a directory: ${join(root, 'demo-projekt')}`)).toBeVisible();
  await expect(folder).toHaveAttribute('aria-invalid', 'true');
  await folder.fill('/usr/share');
  await expect(form.getByText(`must be a folder inside the project root (${root}), not /usr/share`)).toBeVisible();
  await shot(form, 'create-plan-form-wrong-folder');

  await folder.fill(demo);
  await expect(form.getByText(`Found: ${demo}`)).toBeVisible();
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(form).toHaveCount(0);
  await expect(planOption(page, 'add-license')).toBeVisible();

  const header = planHeader(page, 'add-license');
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await expect(header.getByText('6 of 6 steps done')).toBeVisible();
});

test('the form names each problem of a plan the host refuses, and creates nothing', async ({ page, agentsConsole }) => {
  const { cli, url } = agentsConsole;
  await openConsole(page, url);
  const plan = [
    'name: typo',
    'definitionOfDone:',
    '  - step: Write',
    '    tools:',
    '      - tool: file.write',
    '        args: { pth: a.txt, content: x }',
    '  - step: Twiddle',
    '    tools:',
    '      - tool: file.frobnicate',
    '',
  ].join('\n');
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Create plan' }).click();
  await (await chooser).setFiles({ name: 'typo.yaml', mimeType: 'text/yaml', buffer: Buffer.from(plan) });
  const form = createPlanForm(page);
  await expect(form.getByText('Empty: the folder the plan file names, if any.')).toBeVisible();
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const alert = form.getByRole('alert');
  await expect(alert).toContainText('step 1, call 1 (file.write): unknown field "pth"; missing field "path"');
  await expect(alert).toContainText('step 2, call 1: unknown tool "file.frobnicate"; the tools are file.delete, file.edit');
  await shot(form, 'create-plan-form-refused');
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  expect(JSON.parse((await cli(['plan', 'list', '--json'])).stdout)).toEqual({ plans: [] });
});
