import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { layoutProblems } from './layout-audit';
import { createPlan, foldersRemovedAfterEach, openConsole, pickPlanFile, planOption, shot } from './helpers';

/**
 * Every main view, looked at in the sizes operators use, light and dark: nothing cut off or outside
 * its box, no text cut short beside free room, no heading over an empty section. The screenshots
 * stay in test-results/screenshots/visual/ to be looked at.
 */
const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];
const THEMES = ['light', 'dark'] as const;

const tempDirs = foldersRemovedAfterEach();

/** Twelve steps whose titles are long, as a generated refactor's are; each writes one file. */
function longTitlesPlan(examples: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-visual-'));
  tempDirs.push(dir);
  const steps = Array.from(
    { length: 12 },
    (_, i) => `  - step: Generate module group ${i + 101}
    tools:
      - tool: file.write
        args: { path: "generated/g${i + 1}.js", content: "export const id = ${i + 1};\\n" }`,
  );
  const file = join(dir, 'large-refactor.yaml');
  writeFileSync(file, `name: large-refactor\nproject: ${JSON.stringify(join(examples, 'demo-project'))}\nautomationProfile: trusted\ndefinitionOfDone:\n${steps.join('\n')}\n`);
  return file;
}

/** A plan that waits for the operator's approval of a shell command. */
function approvalPlan(examples: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-visual-'));
  tempDirs.push(dir);
  const file = join(dir, 'supervised.yaml');
  writeFileSync(
    file,
    `name: supervised-commands\nproject: ${JSON.stringify(join(examples, 'demo-project'))}\nautomationProfile: supervised\ndefinitionOfDone:\n  - step: Write the build stamp\n    rationale: The release notes read the stamp\n    tools:\n      - tool: shell.run\n        args: { command: "echo built > stamp.txt" }\n`,
  );
  return file;
}

for (const size of SIZES) {
  for (const theme of THEMES) {
    const tag = `${size.width}x${size.height}-${theme}`;
    test(`every main view at ${size.width}×${size.height}, ${theme}: nothing cut off, no text cut short beside free room, no empty section`, async ({ page, agentsConsole }) => {
      test.slow();
      const { cli, examples, url } = agentsConsole;
      const found: string[] = [];
      const look = async (view: string) => {
        await page.evaluate(() => document.fonts.ready);
        await shot(page, `visual/${tag}-${view}`);
        found.push(...(await layoutProblems(page)).map((problem) => `${view}: ${problem}`));
      };

      const done = await createPlan(cli, join(examples, 'add-license.yaml'));
      expect((await cli(['plan', 'run', done])).code).toBe(0);
      const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
      expect((await cli(['plan', 'run', failed])).code).toBe(1);
      const large = await createPlan(cli, longTitlesPlan(examples));
      expect((await cli(['plan', 'run', large])).code).toBe(0);
      await createPlan(cli, approvalPlan(examples));
      await createPlan(cli, join(examples, 'flaky-network.yaml'));

      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      await openConsole(page, url);
      await look('plan-list');

      await planOption(page, 'add-license').click();
      await expect(page.getByRole('region', { name: 'add-license', exact: true }).getByText('Ready to apply')).toBeVisible();
      await look('tree');
      await page.getByRole('tab', { name: /^Changes/ }).click();
      await page.getByRole('button', { name: 'README.md', exact: true }).click();
      await expect(page.getByRole('list', { name: 'Diff of README.md' })).toBeVisible();
      await look('changes-unified');
      await page.getByRole('button', { name: 'Side by side' }).click();
      await expect(page.getByRole('button', { name: 'Side by side' })).toHaveAttribute('aria-pressed', 'true');
      await look('changes-side-by-side');
      await page.getByRole('button', { name: 'Unified' }).click();
      await page.getByRole('tab', { name: /^Checks/ }).click();
      await look('checks');

      await planOption(page, 'large-refactor').click();
      await page.getByRole('tab', { name: /^Decisions/ }).click();
      await expect(page.getByRole('treeitem', { name: /Generate module group 112/ })).toBeVisible();
      await look('tree-long-titles');

      await planOption(page, 'broken-docs').click();
      const card = page.getByRole('region', { name: /failed/ });
      await expect(card).toBeVisible();
      await look('failure-card');
      await card.getByRole('button', { name: 'Edit README.md' }).click();
      await expect(page.getByRole('textbox').first()).toBeVisible();
      await look('failure-card-editor');
      await page.keyboard.press('Escape');

      await planOption(page, 'supervised-commands').click();
      await page.getByRole('tab', { name: /^Decisions/ }).click();
      await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
      await expect(page.getByRole('region', { name: /^Approval needed/ })).toBeVisible();
      await look('approval-card');

      await planOption(page, 'flaky-network').click();
      await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Step\b/ }).click();
      await expect(page.getByRole('region', { name: 'flaky-network', exact: true }).getByText('Paused', { exact: true })).toBeVisible();
      await look('step-mode');

      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await look('settings');
      await page.keyboard.press('Escape');

      await expect((await pickPlanFile(page, join(examples, 'add-license.yaml'))).getByText(/^Found: |not a directory/)).toBeVisible();
      await look('create-plan');

      expect(found).toEqual([]);
    });
  }
}

