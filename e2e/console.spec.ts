import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, ROOT, test } from './fixtures';

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

async function shot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

async function openConsole(page: Page, url: string) {
  await page.goto(url);
  await expect(page.locator('body')).toHaveAttribute('data-app-state', 'loaded');
}

async function createPlan(cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, file: string) {
  const result = await cli(['plan', 'create', file]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** Adds the section the broken-docs plan expects, in the plan's sandbox: the operator's fix. */
async function fixBrokenDocs(cli: (args: string[]) => Promise<{ stdout: string }>, planId: string) {
  const plan = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };
  const readme = join(plan.sandboxRefs[0], 'README.md');
  writeFileSync(readme, `${readFileSync(readme, 'utf8')}\n## Configuration\n`);
}

test('an operator steps through the demo plan, reads a diff in both modes, and applies it', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  await openConsole(page, url);
  await page.locator(`[data-testid="plan-row"][data-plan-id="${planId}"]`).click();
  const header = page.getByTestId('plan-header');
  await expect(header).toHaveAttribute('data-plan-id', planId);

  // Step starts the plan in step mode: it pauses before the first decision.
  await page.getByTestId('action-step').click();
  await expect(header).toHaveAttribute('data-plan-state', 'paused');
  const steps = page.locator('[data-testid="decision-row"][data-type="strategy_choice"]');
  await expect(steps).toHaveCount(6);
  await expect(steps.nth(0)).toHaveAttribute('data-status', 'pending');

  await page.getByTestId('action-step').click();
  await expect(steps.nth(0)).toHaveAttribute('data-status', 'done');
  await expect(steps.nth(1)).toHaveAttribute('data-status', 'pending');
  await expect(header).toHaveAttribute('data-plan-state', 'paused');
  await page.getByTestId('action-step').click();
  await expect(steps.nth(1)).toHaveAttribute('data-status', 'done');
  await expect(steps.nth(2)).toHaveAttribute('data-status', 'pending');
  await shot(page, 'step-mode');

  await page.getByTestId('action-continue').click();
  await expect(header).toHaveAttribute('data-plan-phase', 'apply');
  await expect(header).toHaveAttribute('data-plan-state', 'queued');
  await expect(steps.nth(5)).toHaveAttribute('data-status', 'done');
  await shot(page, 'decision-tree');

  await page.getByTestId('tab-changes').click();
  const rows = page.getByTestId('change-row');
  await expect(rows.first()).toBeVisible();
  await page.locator('[data-testid="change-row"][data-path="README.md"]').first().click();
  const viewer = page.getByTestId('diff-viewer');
  await expect(viewer).toHaveAttribute('data-state', 'loaded');
  await expect(viewer).toHaveAttribute('data-path', 'README.md');
  await expect(page.locator('[data-testid="diff-line"][data-kind="add"]').first()).toContainText('MIT licensed');
  await shot(page, 'diff-unified');
  await page.getByTestId('diff-mode-split').click();
  await expect(viewer).toHaveAttribute('data-mode', 'split');
  await expect(page.locator('[data-testid="diff-line"][data-kind="change"]').first()).toBeVisible();
  await shot(page, 'diff-side-by-side');

  await page.getByTestId('action-apply').click();
  await expect(header).toHaveAttribute('data-plan-state', 'complete');
  expect(readFileSync(join(examples, 'demo-project/README.md'), 'utf8')).toContain('MIT licensed');
});

test('an operator opens a failed plan, reads the failure card, fixes the cause and retries', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  await openConsole(page, url);
  const row = page.locator(`[data-testid="plan-row"][data-plan-id="${planId}"]`);
  await expect(row).toHaveAttribute('data-needs-attention', 'true');
  await row.click();
  const card = page.getByTestId('failure-card');
  await expect(card).toHaveAttribute('data-category', 'tool');
  await expect(page.getByTestId('failure-hint')).toContainText('Fix the cause');
  await expect(page.getByTestId('failure-command')).toContainText(`agents plan retry ${planId}`);
  await expect(page.getByTestId('failure-attempt')).toHaveCount(1);
  await shot(page, 'failure-card');

  await fixBrokenDocs(cli, planId);
  await page.getByTestId('failure-retry').click();
  const header = page.getByTestId('plan-header');
  await expect(header).toHaveAttribute('data-plan-phase', 'apply');
  await expect(header).toHaveAttribute('data-plan-state', 'queued');
  const steps = page.locator('[data-testid="decision-row"][data-type="strategy_choice"]');
  for (let i = 0; i < 3; i += 1) await expect(steps.nth(i)).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('failure-card')).toHaveCount(0);
});

test('keyboard only: reach the failure with n and retry it with r', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  await createPlan(cli, join(examples, 'add-license.yaml'));
  const failed = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', failed])).code).toBe(1);
  await openConsole(page, url);

  await page.keyboard.press('n');
  const header = page.getByTestId('plan-header');
  await expect(header).toHaveAttribute('data-plan-id', failed);
  await expect(page.locator('[data-testid="decision-row"][aria-selected="true"]')).toHaveAttribute('data-status', 'failed');
  await page.keyboard.press('?');
  await expect(page.getByTestId('help-sheet')).toBeVisible();
  await shot(page, 'help-sheet');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('help-sheet')).toHaveCount(0);

  await fixBrokenDocs(cli, failed);
  await page.keyboard.press('r');
  await expect(header).toHaveAttribute('data-plan-phase', 'apply');
  await expect(header).toHaveAttribute('data-plan-state', 'queued');
  await shot(page, 'plans-list');
});

test('an operator creates a plan from a file with the file picker; a bad file gets a one-line error', async ({ page, agentsConsole }) => {
  const { examples, url } = agentsConsole;
  await openConsole(page, url);
  await expect(page.getByTestId('plans-empty')).toBeVisible();
  await shot(page, 'empty-state');
  await page.getByTestId('create-plan-input').setInputFiles({ name: 'bad.yaml', mimeType: 'text/yaml', buffer: Buffer.from('definitionOfDone: "- a"\n') });
  await expect(page.getByTestId('create-plan-error')).toContainText('name');
  const text = readFileSync(join(examples, 'add-license.yaml'), 'utf8').replace('project: ./demo-project', '');
  await page.getByTestId('create-plan-input').setInputFiles({ name: 'add-license.yaml', mimeType: 'text/yaml', buffer: Buffer.from(text) });
  await expect(page.locator('[data-testid="plan-row"][data-plan-name="add-license"]')).toBeVisible();
});
