import AxeBuilder from '@axe-core/playwright';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Locator, type Page, expect } from '@playwright/test';
import { ScriptedModelServer } from '../tests/support/scripted-model-server';
import { pickInNativeDialog } from '../tests/support/electron-ipc-stand-in.cjs';
import { ROOT, test } from './fixtures';

/**
 * A scripted model server for the tests of one spec file: `agents serve` takes the model from its
 * environment, as an operator's shell would give it.
 */
export function scriptedModelForServe(): ScriptedModelServer {
  const server = new ScriptedModelServer();
  test.beforeAll(async () => {
    await server.start();
    process.env.AGENTS_MODEL = 'openai-compatible:scripted';
    process.env.AGENTS_BASE_URL = server.baseUrl;
  });
  test.afterAll(async () => {
    delete process.env.AGENTS_MODEL;
    delete process.env.AGENTS_BASE_URL;
    await server.close();
  });
  return server;
}

/** Folders a spec file's tests make: push one, and it is removed when the test ends. */
export function foldersRemovedAfterEach(): string[] {
  const folders: string[] = [];
  test.afterEach(() => {
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return folders;
}

const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');

/** A screenshot of the page, or of one part of it, in test-results/screenshots. */
export async function shot(target: Page | Locator, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Opens the console and waits for its first load: the plan list, or its empty state. */
export async function openConsole(page: Page, url: string) {
  await page.goto(url);
  await expect(page.getByRole('listbox', { name: 'Plans' }).or(page.getByText('No plans yet — create one from a plan file.'))).toBeVisible();
}

/** A file of the open plan's Changes tab, by its path, as the list names it. */
export function changedFile(page: Page, path: string) {
  return page.getByRole('list', { name: 'Changed files' }).getByRole('button', { name: path, exact: true });
}

/** The Create plan form that opens once a plan file is picked. */
export function createPlanForm(page: Page) {
  return page.getByRole('dialog', { name: /^Create plan from / });
}

/**
 * Create plan opens the browser's file picker; the operator picks the plan file and creates it with
 * the folder the form shows. The desktop app's native dialog gives a path, and creates the plan at once.
 */
export async function createPlanWithPicker(page: Page, file: string | { name: string; mimeType: string; buffer: Buffer }) {
  if (await isDesktopWindow(page)) {
    const path = typeof file === 'string' ? file : join(mkdtempSync(join(tmpdir(), 'agents-picked-')), file.name);
    if (typeof file !== 'string') writeFileSync(path, file.buffer);
    await pickInNativeDialog(page.url(), path);
    await page.getByRole('button', { name: /^Create (a )?plan/ }).click();
    return;
  }
  await (await pickPlanFile(page, file)).getByRole('button', { name: 'Create', exact: true }).click();
}

/** Create plan in the browser: the operator picks `file` in the file picker; returns the form it opens. */
export async function pickPlanFile(page: Page, file: string | { name: string; mimeType: string; buffer: Buffer }) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: /^Create (a )?plan/ }).click();
  await (await chooser).setFiles(file);
  return createPlanForm(page);
}

/** Whether the page is the desktop app's window (e2e/fixtures.ts, transport `desktop`): its bridge came from the preload. */
export function isDesktopWindow(page: Page): Promise<boolean> {
  return page.evaluate(() => Object.getOwnPropertyDescriptor(window, 'agents') !== undefined);
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

/** The serious and critical violations axe finds on the page as it is now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1).join(' ') ?? v.help}`));
}
