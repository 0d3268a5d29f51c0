import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planHeader, planOption, shot } from './helpers';

test('an operator applies 2 of the 4 changed files, then the other 2 later', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const project = join(examples, 'demo-project');
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(0);
  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const header = planHeader(page, 'add-license');

  // README.md is edited by two steps and greet.js is edited, then moved: four files, not six entries.
  await page.getByRole('tab', { name: 'Changes, 4' }).click();
  const files = page.getByRole('list', { name: 'Changed files' });
  await expect(files.getByRole('listitem')).toHaveCount(4);
  const readme = files.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'README.md', exact: true }) });
  await expect(readme).toContainText('Steps: Mention the licence in the README · Move the greeting module into lib/');
  await expect(files.getByRole('button', { name: 'src/greet.js → lib/greet.js' })).toBeVisible();

  await files.getByRole('checkbox', { name: 'Accept lib/greet.js' }).uncheck();
  await files.getByRole('checkbox', { name: 'Accept tests/greet.test.js' }).uncheck();
  await page.getByRole('button', { name: 'Apply 2 files' }).click();
  const dialog = page.getByRole('dialog', { name: 'Apply 2 files to the project?' });
  await expect(dialog.getByRole('listitem')).toHaveText([/LICENSE \+4 −0/, /README\.md \+3 −1/]);
  await shot(page, 'apply-confirm');
  // Nothing is written before the operator confirms.
  expect(existsSync(join(project, 'LICENSE'))).toBe(false);
  await dialog.getByRole('button', { name: 'Write 2 files' }).click();

  await expect(page.getByText('Applied 2 files. 2 files remain')).toBeVisible();
  await expect(page.getByText('2 applied, 2 remaining')).toBeVisible();
  expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain('MIT licensed');
  expect(existsSync(join(project, 'lib/greet.js'))).toBe(false);
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await expect(header.getByRole('button', { name: 'Discard the rest' })).toBeEnabled();
  await shot(page, 'apply-partial');

  // The files left unticked stay unticked: the rest is applied only once the operator ticks it.
  await expect(files.getByRole('checkbox', { name: 'Accept lib/greet.js' })).not.toBeChecked();
  await expect(files.getByRole('checkbox', { name: 'Accept tests/greet.test.js' })).not.toBeChecked();
  await files.getByRole('checkbox', { name: 'Accept lib/greet.js' }).check();
  await files.getByRole('checkbox', { name: 'Accept tests/greet.test.js' }).check();
  await page.getByRole('button', { name: 'Apply 2 files' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Write 2 files' }).click();
  await expect(header.getByText('Applied', { exact: true })).toBeVisible();
  expect(readFileSync(join(project, 'lib/greet.js'), 'utf8')).toContain('`Hello, ${name}!`');
  expect(existsSync(join(project, 'src/greet.js'))).toBe(false);
});

test('an operator rejects one hunk of a file; the file on disk gets the other hunks only', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const project = join(examples, 'demo-project');
  const notes = Array.from({ length: 30 }, (_, i) => `note ${i + 1}`).join('\n') + '\n';
  writeFileSync(join(project, 'NOTES.md'), notes);
  const file = join(examples, 'three-hunks.yaml');
  writeFileSync(
    file,
    [
      'name: three-hunks',
      'project: ./demo-project',
      'definitionOfDone:',
      '  - step: Edit the top, the middle and the end of the notes',
      '    tools:',
      '      - { tool: file.edit, args: { path: NOTES.md, find: "note 2\\n", replace: "second\\n" } }',
      '      - { tool: file.edit, args: { path: NOTES.md, find: "note 15\\n", replace: "fifteenth\\n" } }',
      '      - { tool: file.edit, args: { path: NOTES.md, find: "note 29\\n", replace: "penultimate\\n" } }',
      '',
    ].join('\n'),
  );
  const planId = await createPlan(cli, file);
  expect((await cli(['plan', 'run', planId])).code).toBe(0);
  await openConsole(page, url);
  await planOption(page, 'three-hunks').click();
  await page.getByRole('tab', { name: 'Changes, 1' }).click();

  const diff = page.getByRole('list', { name: 'Diff of NOTES.md' });
  await expect(diff.getByRole('listitem').filter({ hasText: /removed, line 15: .*note 15/ })).toBeVisible();
  await expect(diff.getByRole('listitem').filter({ hasText: /added, line 15: .*fifteenth/ })).toBeVisible();
  await diff.getByRole('checkbox', { name: 'Hunk 2 of 3' }).uncheck();
  await shot(page, 'hunk-rejected');
  await page.getByRole('button', { name: 'Apply 1 file' }).click();
  const dialog = page.getByRole('dialog', { name: 'Apply 1 file to the project?' });
  await expect(dialog).toContainText('hunks 1, 3 of 3');
  await dialog.getByRole('button', { name: 'Write 1 file' }).click();
  await expect(page.getByText('Applied 1 file. 1 file remains')).toBeVisible();

  const written = readFileSync(join(project, 'NOTES.md'), 'utf8');
  expect(written).toBe(notes.replace('note 2\n', 'second\n').replace('note 29\n', 'penultimate\n'));
  await expect(diff.getByText('Hunk 1 of 3, applied')).toBeVisible();
  // The declined hunk is kept with the plan: it stays declined for the next apply until the operator ticks it.
  await expect(diff.getByRole('checkbox', { name: 'Hunk 2 of 3' })).not.toBeChecked();
  await diff.getByRole('checkbox', { name: 'Hunk 2 of 3' }).check();
  await expect(diff.getByRole('checkbox', { name: 'Hunk 2 of 3' })).toBeChecked();
});

test('broken-docs, fixed by hand: an unticked file stays unticked after the rest is applied, the count agrees, and a one-hunk file takes a reason', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const project = join(examples, 'demo-project');
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  const plan = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };
  const readme = join(plan.sandboxRefs[0], 'README.md');
  writeFileSync(readme, `${readFileSync(readme, 'utf8')}\n## Configuration\n`);
  expect((await cli(['plan', 'retry', planId])).code).toBe(0);

  await page.setViewportSize({ width: 1280, height: 720 });
  await openConsole(page, url);
  await planOption(page, 'broken-docs').click();
  await page.getByRole('tab', { name: 'Changes, 2' }).click();
  const files = page.getByRole('list', { name: 'Changed files' });
  // The row has room for its name: README.md is not cut to "REA…".
  const readmeButton = files.getByRole('button', { name: 'README.md', exact: true });
  await expect(readmeButton).toBeVisible();
  expect(await readmeButton.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  // docs/configuration.md is one hunk: its box is there, and declining it asks why.
  await files.getByRole('button', { name: 'docs/configuration.md', exact: true }).click();
  const diff = page.getByRole('list', { name: 'Diff of docs/configuration.md' });
  await diff.getByRole('checkbox', { name: 'Hunk 1 of 1' }).uncheck();
  await expect(diff.getByRole('textbox', { name: 'Why hunk 1 is declined' })).toBeVisible();
  await expect(files.getByRole('checkbox', { name: 'Accept docs/configuration.md' })).not.toBeChecked();
  await diff.getByRole('checkbox', { name: 'Hunk 1 of 1' }).check();
  await expect(files.getByRole('checkbox', { name: 'Accept docs/configuration.md' })).toBeChecked();

  await files.getByRole('checkbox', { name: 'Accept docs/configuration.md' }).uncheck();
  await page.getByRole('button', { name: 'Apply 1 file' }).click();
  await page.getByRole('dialog', { name: 'Apply 1 file to the project?' }).getByRole('button', { name: 'Write 1 file' }).click();
  await expect(page.getByText('Applied 1 file. 1 file remains: apply it later, or discard the rest.')).toBeVisible();
  expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain('See docs/configuration.md.');
  // The unticked file is still unticked: nothing would write it by accident.
  await expect(files.getByRole('checkbox', { name: 'Accept docs/configuration.md' })).not.toBeChecked();
  await expect(page.getByRole('button', { name: /^Apply \d+ files?$/ })).toBeDisabled();
  expect(existsSync(join(project, 'docs/configuration.md'))).toBe(false);
  await shot(page, 'apply-partial-broken-docs');
});
