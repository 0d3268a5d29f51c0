import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Locator, type Page, expect } from '@playwright/test';
import { ROOT } from './fixtures';

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

/** A screenshot of the page, or of one part of it, in test-results/screenshots. */
export async function shot(target: Page | Locator, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

export async function openConsole(page: Page, url: string) {
  await page.goto(url);
  // The app's ready marker: no role says "the first load has finished".
  await expect(page.locator('body')).toHaveAttribute('data-app-state', 'loaded');
}

/** Create plan opens the browser's file picker; the operator picks the plan file. */
export async function createPlanWithPicker(page: Page, file: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: /^Create (a )?plan/ }).click();
  await (await chooser).setFiles(file);
}

export async function createPlan(cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, file: string) {
  const result = await cli(['plan', 'create', file]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** The plan in the list, by its name. */
export function planOption(page: Page, name: string) {
  return page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: new RegExp(`^${name}\\b`) });
}

/** The open plan's header region, named by the plan. */
export function planHeader(page: Page, name: string) {
  return page.getByRole('region', { name, exact: true });
}

/** The tree's steps (the strategy choices), in order. */
export function stepItems(page: Page) {
  return page.getByRole('tree', { name: 'Decision tree' }).getByRole('treeitem', { name: /\bStep\b/ });
}
