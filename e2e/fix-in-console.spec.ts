import AxeBuilder from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { changedFile, createPlan, openConsole, planHeader, planOption, shot } from './helpers';

test('an operator fixes the cause of a failure in the console: edit README.md in the sandbox, retry, review and apply', async ({ page, agentsConsole }) => {
  test.setTimeout(120_000);
  const { cli, examples, url } = agentsConsole;
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });

  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  const { sandboxRefs } = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };
  await openConsole(page, url);
  await planOption(page, 'broken-docs').click();
  const header = planHeader(page, 'broken-docs');

  const card = page.getByRole('region', { name: /failed/ });
  await expect(card.getByText(sandboxRefs[0], { exact: true })).toBeVisible();
  await card.getByRole('button', { name: 'Edit README.md' }).click();

  const editor = page.getByRole('region', { name: 'Editing README.md' });
  const text = editor.getByRole('textbox', { name: 'Text of README.md' });
  await expect(text).toBeFocused();
  // CodeMirror's own styles reached the page under the console's CSP: its editor lays out as a flex box.
  expect(await editor.locator('.cm-editor').evaluate((el) => getComputedStyle(el).display)).toBe('flex');

  // Typed into the editor, letters are text, not the console's shortcuts ("r" would retry).
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n## Configuration\n?');
  await page.keyboard.press('Backspace');
  await expect(text).toContainText('## Configuration');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toHaveCount(0);
  await expect(header.getByText('Failed', { exact: true })).toBeVisible();
  await shot(page, 'sandbox-editor');

  const axe = await new AxeBuilder({ page }).include('.sandbox-editor').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await page.keyboard.press('Control+S');
  await expect(editor).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Saved README.md in the sandbox' }).first()).toBeVisible();
  expect(readFileSync(join(sandboxRefs[0], 'README.md'), 'utf8')).toMatch(/\n## Configuration\n/);

  await card.getByRole('button', { name: 'Retry from the failed step' }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible();

  await page.getByRole('tab', { name: /^Changes/ }).click();
  await changedFile(page, 'README.md').click();
  const diff = page.getByRole('region', { name: 'Diff of README.md' });
  await expect(diff.getByText('Edited by you', { exact: true })).toBeVisible();
  const lines = page.getByRole('list', { name: 'Diff of README.md' });
  await expect(lines.getByRole('listitem').filter({ hasText: /added, line \d+:.*## Configuration$/ })).toBeVisible();
  await expect(lines.getByRole('listitem').filter({ hasText: /added, line \d+:.*See docs\/configuration\.md\.$/ })).toBeVisible();
  await shot(page, 'review-edited-by-you');

  await header.getByRole('button', { name: 'Apply', exact: true }).click();
  await page.getByRole('dialog', { name: 'Apply 2 files to the project?' }).getByRole('button', { name: 'Write 2 files' }).click();
  await expect(header.getByText('Applied', { exact: true })).toBeVisible();
  const readme = readFileSync(join(examples, 'demo-project/README.md'), 'utf8');
  expect(readme).toContain('## Configuration\n\nSee docs/configuration.md.');
  expect(blocked).toEqual([]);
});

test('a file the plan has not changed opens by its path; Escape cancels, and a path that is not there gets one line', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  await openConsole(page, url);
  await planOption(page, 'broken-docs').click();
  await page.getByRole('tab', { name: /^Changes/ }).click();

  await page.getByRole('button', { name: 'Open a file of the sandbox…' }).click();
  const path = page.getByLabel('Path in the sandbox');
  await path.fill('nope.txt');
  await path.press('Enter');
  await expect(page.getByRole('region', { name: 'Editing nope.txt' }).getByText(/Couldn't open nope\.txt: .*nope\.txt/)).toBeVisible();
  await page.getByRole('button', { name: 'Close' }).click();

  await path.fill('src/greet.js');
  await path.press('Enter');
  const editor = page.getByRole('region', { name: 'Editing src/greet.js' });
  const text = editor.getByRole('textbox', { name: 'Text of src/greet.js' });
  await expect(text).toBeFocused();
  await page.keyboard.type('// a note\n');
  await page.keyboard.press('Escape');
  await expect(editor).toHaveCount(0);
  // Outside the editor the shortcuts work again: 1 shows the decisions.
  await page.keyboard.press('1');
  await expect(page.getByRole('tab', { name: /^Decisions/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('2');
  // Cancelled: nothing was written, and the changes list only the plan's own file.
  await expect(page.getByRole('list', { name: 'Changed files' }).getByRole('listitem')).toHaveCount(1);
});
