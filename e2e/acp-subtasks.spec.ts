import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAgentsInstalled } from '../tests/support/acp-agents';
import { CLAUDE_TASK_CALLS, claudeWithTasksAddArgs, oneStep } from '../tests/support/acp-subtask-script';
import { ScriptedModelServer } from '../tests/support/scripted-model-server';
import { expect, test } from './fixtures';
import { foldersRemovedAfterEach, openConsole } from './helpers';

// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md);
// the console's host and the CLI take this process's environment.
process.env.IS_SANDBOX = '';

const server = new ScriptedModelServer();
test.beforeAll(() => server.start());
test.afterAll(() => server.close());
const tempDirs = foldersRemovedAfterEach();

test.skip(!testAgentsInstalled, 'the test agents are installed with npm install --prefix tests/agents');

test("a coding agent's sub-tasks show under its step in the tree, with a tally, as the agent sends them", async ({ page, agentsConsole }) => {
  test.slow();
  const added = await agentsConsole.cli(claudeWithTasksAddArgs('claude-test', server));
  expect(added.code, added.stderr).toBe(0);
  // The model is slow once the sub-tasks are listed, and again before it marks the last one: the step is still running when the tree is looked at.
  const listed = CLAUDE_TASK_CALLS.findIndex((call) => call('.', []).name === 'Write');
  server.respondWith(oneStep(CLAUDE_TASK_CALLS, (made) => (made === listed || made === CLAUDE_TASK_CALLS.length - 1 ? 10_000 : 0)));
  const dir = mkdtempSync(join(tmpdir(), 'agents-acp-subtasks-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'acp.yaml');
  writeFileSync(file, `name: acp-subtasks\nproject: ${JSON.stringify(project)}\nautomationProfile: trusted\nagent: { acp: claude-test }\ndefinitionOfDone:\n  - Write NOTES.md (notes)\n`);
  const created = await agentsConsole.cli(['plan', 'create', file]);
  expect(created.code, created.stderr).toBe(0);

  await openConsole(page, agentsConsole.url);
  await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^acp-subtasks\b/ }).click();
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  const tree = page.getByRole('tree', { name: 'Decision tree' });
  const step = tree.getByRole('treeitem', { name: /Write NOTES\.md \(notes\)/ });
  // Live, while the step runs: three sub-tasks under it, none or one done.
  await expect(step.getByTitle(/sub-tasks completed$/)).toHaveText(/[01]\/3/, { timeout: 60_000 });
  await expect(step.getByRole('img', { name: 'running', exact: true })).toBeVisible();
  // A sub-task's row is the tree item with its status's mark, which a step's row does not have.
  const subtasks = tree.getByRole('treeitem').filter({ has: page.getByRole('img', { name: /^(pending|in progress|completed)$/ }) });
  await expect(subtasks).toHaveCount(3);
  await expect(subtasks.nth(0)).toContainText('Read the README');
  await expect(subtasks.nth(2)).toContainText('Check the notes');
  await expect(subtasks.nth(2).getByRole('img', { name: 'pending' })).toBeVisible();

  // The agent marks two done; the step ends.
  await expect(step.getByTitle(/sub-tasks completed$/)).toHaveText(/2\/3/, { timeout: 60_000 });
  await expect(step.getByRole('img', { name: 'done', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(subtasks.nth(0).getByRole('img', { name: 'completed' })).toBeVisible();
  await expect(subtasks.nth(1).getByRole('img', { name: 'completed' })).toBeVisible();
  await expect(subtasks.nth(2).getByRole('img', { name: 'pending' })).toBeVisible();
  await expect(step.getByTitle(/sub-tasks completed$/)).toHaveAttribute('title', '2 of 3 sub-tasks completed');

  // They close and open with the step.
  await step.getByRole('button', { name: 'Collapse Write NOTES.md (notes)' }).click();
  await expect(subtasks).toHaveCount(0);
  await step.getByRole('button', { name: 'Expand Write NOTES.md (notes)' }).click();
  await expect(subtasks).toHaveCount(3);
});
