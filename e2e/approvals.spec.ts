import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { layoutProblems } from './layout-audit';
import { changedFile, createPlanWithPicker, foldersRemovedAfterEach, openConsole, shot } from './helpers';

const tempDirs = foldersRemovedAfterEach();

/** A project of its own, with the rules `.agents/invariants.yaml` gives it, and a plan file over it. */
function writeProject(planYaml: (project: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-approvals-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(join(project, '.agents'), { recursive: true });
  mkdirSync(join(project, 'cache'), { recursive: true });
  writeFileSync(join(project, 'README.md'), '# Demo\n\nA project the plan works on.\n');
  writeFileSync(join(project, 'cache', 'old.bin'), 'stale\n');
  writeFileSync(join(project, 'notes.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(project, '.agents', 'invariants.yaml'), 'protect: ["secrets/**"]\ndenyCommands: ["curl *"]\nnotes: ["The README is user-facing"]\n');
  const file = join(dir, 'plan.yaml');
  writeFileSync(file, planYaml(project));
  return file;
}

/** Accessibility rules axe can check, on one part of the page. */
async function expectAccessible(page: Page, ...selectors: string[]) {
  const axe = new AxeBuilder({ page });
  for (const selector of selectors) axe.include(selector);
  const { violations } = await axe.analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

const controls = (page: Page) => page.getByRole('toolbar', { name: 'Plan controls' });
const runButton = (page: Page) => controls(page).getByRole('button', { name: /^Run\b/ });
const applyButton = (page: Page) => controls(page).getByRole('button', { name: /^Apply\b/ });

test('an operator approves one shell call, rejects the next with a reason, reads both answers in the tree, and skips the rejected step', async ({ page, agentsConsole }) => {
  // Two runs, two answers, a recovery and two axe scans: more than the default minute on a busy machine.
  test.slow();
  const file = writeProject(
    (project) => `name: supervised-commands
description: Two shell commands, each checked by the operator
project: ${JSON.stringify(project)}
automationProfile: supervised
invariants: ["Keep the README's first heading"]
definitionOfDone:
  - step: Write the build stamp
    rationale: The release notes read the stamp
    tools:
      - tool: shell.run
        args: { command: "echo built > stamp.txt" }
  - step: Clear the cache folder
    rationale: A stale cache breaks the next build
    tools:
      - tool: shell.run
        args: { command: "rm -rf cache", timeoutMs: 5000 }
`,
  );
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, file);
  await expect(page.getByRole('heading', { name: 'supervised-commands' })).toBeVisible();
  await runButton(page).click();

  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: shell.run');
  const command = card.getByRole('figure', { name: 'Command' });
  await expect(command).toContainText('echo built > stamp.txt');
  await expect(card).toContainText('Write the build stamp');
  await expect(card).toContainText('The release notes read the stamp');
  await expect(card.getByRole('button', { name: 'Reject' })).toBeDisabled();
  await expect(page.getByRole('option', { name: /supervised-commands/ })).toContainText('Waiting for approval');
  // Recorded at strategize: the plan's own invariants and the project's rules.
  const invariants = page.getByRole('region', { name: 'Invariants' });
  await expect(invariants).toContainText("Keep the README's first heading");
  await expect(invariants).toContainText('secrets/**');
  await expect(invariants).toContainText('curl *');
  await expect(invariants).toContainText('The README is user-facing');
  await shot(page, 'approval-card');
  // The card, the invariants and the list badge: axe checks what it can of what a screen reader gets.
  await expectAccessible(page, '.approval-card', '.plan-invariants', '[role="listbox"]');
  await shot(card, 'approval-card-close');

  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(command).toContainText('rm -rf cache');
  await expect(card).toContainText('Clear the cache folder');
  await expect(card).toContainText('timeoutMs');

  // The keyboard: x goes to the reason field; Reject stays disabled until there is a reason.
  await card.getByRole('heading').click();
  await page.keyboard.press('x');
  const reason = card.getByLabel('Reason for rejecting');
  await expect(reason).toBeFocused();
  await page.keyboard.type('the cache holds the only copy of the fixtures');
  await expect(card.getByRole('button', { name: 'Reject' })).toBeEnabled();
  await shot(page, 'approval-card-reject');
  await page.keyboard.press('Enter');

  const failure = page.getByRole('region', { name: /^Step failed: Clear the cache folder/ });
  await expect(failure).toContainText('rejected');
  await expect(failure).toContainText('the cache holds the only copy of the fixtures');
  await expect(card).toHaveCount(0);
  await expectAccessible(page, '.recovery-actions');
  // A rejected call never ran: the card lists no attempts, and has no heading over nothing.
  await expect(failure.getByRole('heading', { name: 'Attempts' })).toHaveCount(0);
  await shot(failure, 'failure-card-rejected');
  expect((await layoutProblems(page)).filter((problem) => problem.startsWith('heading'))).toEqual([]);

  const approved = page.getByRole('treeitem', { name: /Approved shell\.run/ });
  const rejected = page.getByRole('treeitem', { name: /Rejected shell\.run/ });
  await expect(approved).toContainText('by console');
  await expect(rejected).toContainText('by console — the cache holds the only copy of the fixtures');
  await rejected.click();
  const details = page.getByRole('complementary', { name: 'Decision details' });
  await expect(details.getByRole('definition').filter({ hasText: 'rejected' })).toBeVisible();
  await expect(details).toContainText('the cache holds the only copy of the fixtures');
  await shot(page, 'approval-answers-in-tree');

  await failure.getByRole('button', { name: 'Skip step' }).click();
  await expect(failure).toHaveCount(0);
  await expect(page.getByRole('treeitem', { name: /Skipped step "Clear the cache folder"/ })).toBeVisible();
  await runButton(page).click();
  await expect(applyButton(page)).toBeEnabled();
  await page.getByRole('tab', { name: /Changes/ }).click();
  await expect(changedFile(page, 'stamp.txt')).toBeVisible();
  await expect(page.getByRole('option', { name: /supervised-commands/ })).not.toContainText('Waiting for approval');
});

test('the approval card previews the diff of a delete, and Shift+A approves every later call of the tool', async ({ page, agentsConsole }) => {
  const file = writeProject(
    (project) => `name: tidy-up
project: ${JSON.stringify(project)}
automationProfile: supervised
definitionOfDone:
  - step: Delete the notes
    tools:
      - tool: file.delete
        args: { path: notes.txt }
  - step: Delete the cached file
    tools:
      - tool: file.delete
        args: { path: cache/old.bin }
`,
  );
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, file);
  await runButton(page).click();

  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: file.delete');
  const preview = card.getByRole('group', { name: 'Diff preview of notes.txt' });
  await expect(preview).toContainText('three');
  await shot(card, 'approval-card-diff');

  await card.getByRole('heading').click();
  await page.keyboard.press('Shift+A');
  await expect(applyButton(page)).toBeEnabled();
  await expect(page.getByRole('treeitem', { name: /Approved every file\.delete call of the plan/ })).toBeVisible();
  await expect(card).toHaveCount(0);
});

test('a step the profile refuses is fixed in place by changing the profile', async ({ page, agentsConsole }) => {
  const file = writeProject(
    (project) => `name: needs-the-shell
project: ${JSON.stringify(project)}
automationProfile: restricted
definitionOfDone:
  - step: Write the build stamp
    tools:
      - tool: shell.run
        args: { command: "echo built > stamp.txt" }
`,
  );
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, file);
  await runButton(page).click();

  const failure = page.getByRole('region', { name: /^Step failed: Write the build stamp/ });
  await expect(failure).toContainText('policy');
  await failure.getByLabel('Profile').selectOption('trusted');
  await failure.getByRole('button', { name: 'Change profile' }).click();
  await expect(failure).toHaveCount(0);
  await expect(page.getByRole('treeitem', { name: /Profile restricted -> trusted/ })).toBeVisible();
  await runButton(page).click();
  await expect(applyButton(page)).toBeEnabled();
});
