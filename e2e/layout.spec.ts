import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planOption, shot } from './helpers';

/** Whether the element shows all of its text: nothing cut by an ellipsis or hidden overflow. */
const showsAllText = (locator: Locator) => locator.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);

/** Whether the whole of `inner` lies inside `outer`. */
async function inside(inner: Locator, outer: Locator): Promise<boolean> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()];
  return Boolean(a && b && a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.width <= b.x + b.width + 1 && a.y + a.height <= b.y + b.height + 1);
}

for (const width of [1280, 1440]) {
  test(`side by side at ${width} px: a long line is not cut, and the diff scrolls sideways to its end`, async ({ page, agentsConsole }) => {
    const { cli, examples, url } = agentsConsole;
    const long = `The greeting module reads GREETING from the environment, ${'and falls back to Hello when it is unset, '.repeat(3)}end of line.`;
    const file = join(examples, 'long-line.yaml');
    writeFileSync(
      file,
      `name: long-line\nproject: ./demo-project\ndefinitionOfDone:\n  - step: Explain the greeting\n    tools:\n      - { tool: file.edit, args: { path: README.md, find: "# Demo\\n", replace: ${JSON.stringify(`# Demo\n\n${long}\n`)} } }\n`,
    );
    const planId = await createPlan(cli, file);
    expect((await cli(['plan', 'run', planId])).code).toBe(0);
    await page.setViewportSize({ width, height: 900 });
    await openConsole(page, url);
    await planOption(page, 'long-line').click();
    await page.getByRole('tab', { name: 'Changes, 1' }).click();
    await page.getByRole('button', { name: 'Side by side' }).click();
    const diff = page.getByRole('list', { name: 'Diff of README.md' });
    const added = diff.getByRole('listitem').filter({ hasText: 'end of line.' });
    await expect(added).toBeVisible();
    // Each half holds its whole line; the list scrolls sideways to show it.
    for (const side of await added.locator('.split-side').all()) expect(await showsAllText(side)).toBe(true);
    const lines = page.locator('[aria-label="Lines of README.md"]');
    await lines.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    const end = added.getByText(/end of line\.$/);
    const [endBox, listBox] = [await end.boundingBox(), await lines.boundingBox()];
    expect(endBox && listBox && endBox.x + endBox.width <= listBox.x + listBox.width + 1).toBe(true);
    await shot(page, `side-by-side-long-line-${width}`);
  });
}

test('at 1280×720 the editor opened from the failure card gets most of the window, and Change profile stays inside the card', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  await page.setViewportSize({ width: 1280, height: 720 });
  await openConsole(page, url);
  await planOption(page, 'broken-docs').click();
  const card = page.getByRole('region', { name: /failed/ });
  await expect(card.getByRole('button', { name: 'Change profile' })).toBeVisible();
  expect(await inside(card.getByRole('button', { name: 'Change profile' }), card)).toBe(true);
  // The Attempts heading is not parted from its list by the card's scrolling.
  await expect(card.getByTestId('failure-attempt')).toBeInViewport();

  await card.getByRole('button', { name: 'Edit README.md' }).click();
  const editor = page.getByRole('region', { name: 'Editing README.md' });
  await expect(editor.getByRole('textbox')).toBeVisible();
  // Twelve lines at least, where it had five.
  const box = await editor.getByRole('textbox').boundingBox();
  expect(box?.height ?? 0).toBeGreaterThan(12 * 19);
  // The card keeps what fixing needs: its title, the message and its actions, all inside it.
  await expect(card.getByTestId('failure-message')).toContainText('was not found in "README.md"');
  expect(await inside(card.getByRole('button', { name: 'Retry from the failed step' }), card)).toBe(true);
  expect(await inside(card.getByRole('button', { name: 'Change profile' }), card)).toBe(true);
  await shot(page, 'failure-card-editor-1280x720');
});

test("at 1280×720 a long plan's step titles show in full, numbers included, while the details pane is empty", async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  // As examples/generate-large-plan.cjs writes large-refactor.yaml, smaller: 12 steps of 10 files.
  const steps = Array.from({ length: 12 }, (_, s) => [
    `  - step: Generate module group ${s + 1}`,
    '    tools:',
    ...Array.from({ length: 10 }, (_, f) => `      - { tool: file.write, args: { path: "generated/g${s}/m${f}.js", content: "export const id = '${s}-${f}';\\n" } }`),
  ]);
  const file = join(examples, 'large-refactor.yaml');
  writeFileSync(file, ['name: large-refactor', 'project: ./demo-project', 'automationProfile: trusted', 'definitionOfDone:', ...steps.flat(), ''].join('\n'));
  const planId = await createPlan(cli, file);
  expect((await cli(['plan', 'run', planId])).code).toBe(0);
  await page.setViewportSize({ width: 1280, height: 720 });
  await openConsole(page, url);
  await planOption(page, 'large-refactor').click();
  const tree = page.getByRole('tree', { name: 'Decision tree' });
  for (const n of [1, 9, 12]) {
    const title = tree.getByRole('treeitem', { name: new RegExp(`Generate module group ${n}\\b`) }).getByText(`Generate module group ${n}`, { exact: true });
    await expect(title).toBeVisible();
    expect(await showsAllText(title), `the title of step ${n}`).toBe(true);
  }
  await shot(page, 'tree-large-refactor-1280x720');
});
