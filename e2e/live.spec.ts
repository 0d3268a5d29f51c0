import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, startCli, test } from './fixtures';
import { createPlan, openConsole, planHeader, planOption, shot } from './helpers';

/** Eight steps of a quarter second each: long enough to watch the count rise. */
function slowPlan(examples: string): string {
  const steps = Array.from({ length: 8 }, (_, i) => `  - step: Step ${i + 1} waits\n    tools:\n      - { tool: shell.run, args: { command: "sleep 0.25" } }`);
  const file = join(examples, 'slow.yaml');
  writeFileSync(file, ['name: slow', 'project: ./demo-project', 'definitionOfDone:', ...steps, ''].join('\n'));
  return file;
}

test('a run started from the CLI in another process shows live in the open console, without a reload', async ({ page, agentsConsole }) => {
  const { cli, examples, url, home } = agentsConsole;
  await openConsole(page, url);
  // Created by another process while the console is open: the list shows it without a reload.
  const planId = await createPlan(cli, slowPlan(examples));
  await planOption(page, 'slow').click();
  const header = planHeader(page, 'slow');
  await expect(header.getByText('Ready to run', { exact: true })).toBeVisible();
  await expect(page.getByText('Not strategized yet', { exact: false })).toBeVisible();

  const run = startCli(['plan', 'run', planId], home);
  const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
  const progress = header.getByText(/\d+ of 8 steps done/);
  const seen: number[] = [];
  // Read the count as it changes; a reload would lose nothing here, but the page is never reloaded.
  await expect
    .poll(
      async () => {
        const text = (await progress.textContent({ timeout: 100 }).catch(() => null)) ?? '';
        const done = Number(/(\d+) of 8/.exec(text)?.[1] ?? -1);
        if (done >= 0 && seen.at(-1) !== done) seen.push(done);
        return done;
      },
      { intervals: [50], timeout: 30_000 },
    )
    .toBe(8);
  expect(await exited).toBe(0);
  expect(seen.length, `counts seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
  expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  await expect(header.getByText('Ready to apply', { exact: true })).toBeVisible();
  await expect(header.getByRole('listitem').filter({ hasText: 'apply' })).toHaveAttribute('aria-current', 'step');
  await shot(page, 'live-run-from-cli');

  // Each step's row counted its call as it finished, and an opened step lists the call it ran.
  const steps = page.getByRole('treeitem').filter({ hasText: /Step \d waits/ });
  await expect(steps).toHaveCount(8);
  for (let i = 0; i < 8; i++) await expect(steps.nth(i)).toContainText('1 planned · 1 ran');
  await steps.nth(7).click();
  const calls = page.getByRole('complementary', { name: 'Decision details' }).getByRole('table', { name: 'Planned and actual tool calls' });
  // A header row, then one row per call: its planned cell and the one that ran.
  await expect(calls.getByRole('row')).toHaveCount(2);
  const ran = calls.getByRole('row').nth(1).getByRole('cell').nth(1);
  await expect(ran).toContainText('shell.run');
  await expect(ran).toContainText('sleep 0.25');
  await expect(ran).not.toContainText('not run');

  // The log and the changes followed too.
  await page.getByRole('tab', { name: /^Events, \d+$/ }).click();
  await expect(page.getByRole('tabpanel').getByText(/8 tool calls in/)).toBeVisible();
});
