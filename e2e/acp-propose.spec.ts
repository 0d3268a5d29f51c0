import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAgentsInstalled } from '../tests/support/acp-agents';
import { byTurn, claudeWithTasksAddArgs, type StepCall } from '../tests/support/acp-subtask-script';
import { ScriptedModelServer } from '../tests/support/scripted-model-server';
import { expect, test } from './fixtures';
import { foldersRemovedAfterEach, openConsole } from './helpers';

// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md).
process.env.IS_SANDBOX = '';

const server = new ScriptedModelServer();
test.beforeAll(() => server.start());
test.afterAll(() => server.close());
const tempDirs = foldersRemovedAfterEach();

test.skip(!testAgentsInstalled, 'the test agents are installed with npm install --prefix tests/agents');

const task = (subject: string): StepCall => () => ({ name: 'TaskCreate', args: { subject, description: subject, activeForm: subject } });
const write = (file: string, content: string): StepCall => (dir) => ({ name: 'Write', args: { file_path: join(dir, file), content } });

test('an operator approves the steps a coding agent proposed, on the approval card, and the agent carries them out', async ({ page, agentsConsole }) => {
  test.slow();
  const added = await agentsConsole.cli(claudeWithTasksAddArgs('claude-test', server));
  expect(added.code, added.stderr).toBe(0);
  server.respondWith(
    byTurn([
      [/Propose the steps of this plan/, [() => ({ name: 'ToolSearch', args: { query: 'select:TaskCreate' } }), task('Write NOTES.md with a heading'), task('Write TODO.md with one item')]],
      [/Your step \(\d+ of \d+\): Write NOTES/, [write('NOTES.md', '# Notes\n')]],
      [/Your step \(\d+ of \d+\): Write TODO/, [write('TODO.md', '- one thing\n')]],
    ]),
  );
  const dir = mkdtempSync(join(tmpdir(), 'agents-acp-propose-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'acp.yaml');
  writeFileSync(file, `name: acp-propose\nproject: ${JSON.stringify(project)}\nautomationProfile: supervised\nagent: { acp: claude-test, propose: true }\ndefinitionOfDone: The project has notes and a to-do list\n`);
  const created = await agentsConsole.cli(['plan', 'create', file]);
  expect(created.code, created.stderr).toBe(0);

  await openConsole(page, agentsConsole.url);
  await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^acp-propose\b/ }).click();
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: the proposed plan', { timeout: 60_000 });
  const steps = card.getByRole('list', { name: 'Proposed steps' });
  await expect(steps).toContainText('Write NOTES.md with a heading');
  await expect(steps).toContainText('Write TODO.md with one item');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  await expect(page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ })).toBeEnabled({ timeout: 90_000 });
  const tree = page.getByRole('tree', { name: 'Decision tree' });
  await expect(tree.getByRole('treeitem', { name: /Write TODO\.md with one item/ }).getByRole('img', { name: 'done', exact: true })).toBeVisible();
  const sandbox = join(agentsConsole.home, 'sandboxes', created.stdout.trim());
  expect(readFileSync(join(sandbox, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  expect(readFileSync(join(sandbox, 'TODO.md'), 'utf8')).toBe('- one thing\n');
});
