import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSteps, QWEN_ENTRY, qwenAddArgs, testAgentsInstalled } from '../tests/support/acp-agents';
import { ScriptedModelServer } from '../tests/support/scripted-model-server';
import { expect, test } from './fixtures';
import { foldersRemovedAfterEach, openConsole, planHeader } from './helpers';

const server = new ScriptedModelServer();
test.beforeAll(() => server.start());
test.afterAll(() => server.close());
const tempDirs = foldersRemovedAfterEach();

test.skip(!testAgentsInstalled, 'the test agents are installed with npm install --prefix tests/agents');

test('an operator answers a coding agent\'s permission request on the approval card, which names the agent, its call and the command', async ({ page, agentsConsole }) => {
  test.slow();
  const added = await agentsConsole.cli(qwenAddArgs('qwen-test', server));
  expect(added.code, added.stderr).toBe(0);
  server.respondWith(agentSteps({ stamp: [() => ({ name: 'run_shell_command', args: { command: 'echo stamped > STAMP.txt', description: 'stamp the project', is_background: false } })] }));
  const dir = mkdtempSync(join(tmpdir(), 'agents-acp-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'acp.yaml');
  writeFileSync(file, `name: acp-stamp\nproject: ${JSON.stringify(project)}\nautomationProfile: supervised\nagent: { acp: qwen-test }\ndefinitionOfDone:\n  - Stamp the project (stamp)\n`);
  const created = await agentsConsole.cli(['plan', 'create', file]);
  expect(created.code, created.stderr).toBe(0);

  await openConsole(page, agentsConsole.url);
  await page.getByRole('listbox', { name: 'Plans' }).getByRole('option', { name: /^acp-stamp\b/ }).click();
  await expect(planHeader(page, 'acp-stamp')).toContainText('Agent qwen-test');
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: shell.run', { timeout: 60_000 });
  await expect(card.getByTestId('approval-agent')).toContainText('Agent qwen-test asks');
  await expect(card.getByTestId('approval-agent')).toContainText('(execute)');
  await expect(card.getByRole('figure')).toContainText('echo stamped > STAMP.txt');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  await expect(page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ })).toBeEnabled({ timeout: 60_000 });
  // The header shows the version the agent's initialize reported.
  await expect(planHeader(page, 'acp-stamp')).toContainText('Agent qwen-test (qwen-code 0.24.4)');
  const id = created.stdout.trim();
  expect(readFileSync(join(agentsConsole.home, 'sandboxes', id, 'STAMP.txt'), 'utf8')).toBe('stamped\n');
});

test('an operator adds a coding agent in Settings, sees that it starts with its version and modes and never its environment\'s values, and removes it', async ({ page, agentsConsole }) => {
  test.slow();
  await openConsole(page, agentsConsole.url);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const agents = dialog.getByRole('list', { name: 'Coding agents' });
  // The built-in agents are listed, each as not installed on this console's PATH.
  await expect(agents.getByRole('listitem').filter({ hasText: /^gemini \(built in\)/ })).toContainText('Not installed');

  await dialog.getByLabel('Agent name').fill('qwen-console');
  await dialog.getByLabel('Agent command line').fill(`${process.execPath} ${QWEN_ENTRY} --acp`);
  await dialog.getByLabel('Agent environment').fill(`OPENAI_BASE_URL=${server.baseUrl} OPENAI_API_KEY=sk-console-secret OPENAI_MODEL=qwen3-coder QWEN_USAGE_STATISTICS_ENABLED=false`);
  await dialog.getByRole('button', { name: 'Add agent' }).click();
  const added = agents.getByRole('listitem').filter({ hasText: /^qwen-console/ });
  await expect(added).toContainText('cli-entry.js --acp (env: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, QWEN_USAGE_STATISTICS_ENABLED)', { timeout: 60_000 });
  await expect(added).toContainText(/Starts: qwen-code 0\.24\.4; modes: .*default/);
  await expect(dialog.getByLabel('Agent environment')).toHaveValue('');
  expect(await page.content()).not.toContain('sk-console-secret');
  // The CLI sees the agent the console added.
  const listed = await agentsConsole.cli(['acp', 'list', '--json']);
  expect((JSON.parse(listed.stdout) as { name: string; ok: boolean }[]).find((a) => a.name === 'qwen-console')).toMatchObject({ ok: true });

  await added.getByRole('button', { name: 'Remove agent qwen-console' }).click();
  await expect(agents.getByRole('listitem').filter({ hasText: /^qwen-console/ })).toHaveCount(0);
  await expect(page.getByRole('status').filter({ hasText: 'Agent qwen-console removed' })).toBeAttached();
});
