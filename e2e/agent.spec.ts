import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStrategize, toolResults } from '../tests/support/scripted-agent';
import { expect, test } from './fixtures';
import { changedFile, createPlanWithPicker, foldersRemovedAfterEach, openConsole, scriptedModelForServe, shot } from './helpers';

const server = scriptedModelForServe();
const GREETING = 'hello from the agent';
const SPOKEN = 'I will write NOTES.md with the shell, then check it. Writing the greeting now.';


const tempDirs = foldersRemovedAfterEach();

/** A model that reads the project, proposes one step, and carries it out with one shell command. */
function shellWritingModel() {
  server.reset();
  server.respondWith((request) => {
    if (isStrategize(request)) {
      if (toolResults(request) === 0) return { text: 'Reading the project first.', toolCalls: [{ name: 'file_list', args: {} }] };
      const step = { description: 'Write NOTES.md with a greeting', rationale: 'The definition of done asks for a greeting', acceptance: 'NOTES.md holds the greeting' };
      return { text: 'One step will do.', toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
    }
    if (toolResults(request) === 0) {
      // Slow enough to watch it arrive in pieces.
      return { text: SPOKEN, chunkSize: 6, chunkDelayMs: 60, toolCalls: [{ name: 'shell_run', args: { command: `echo '${GREETING}' > NOTES.md` } }] };
    }
    return { text: 'Done.', toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md with the shell.' } }] };
  });
}

function writeAgentPlan(): { file: string; project: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agents-agent-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'agent-notes.yaml');
  writeFileSync(
    file,
    `name: agent-notes
description: A model writes the notes
project: ${JSON.stringify(project)}
automationProfile: supervised
agent: true
definitionOfDone: NOTES.md greets the reader
`,
  );
  return { file, project };
}

test('an operator creates an agent plan, reviews and approves the proposed tree and a shell call, watches the model, reads the diff and applies', async ({ page, agentsConsole }) => {
  test.slow();
  shellWritingModel();
  const { file, project } = writeAgentPlan();
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, file);
  await expect(page.getByRole('heading', { name: 'agent-notes' })).toBeVisible();
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  // The proposed tree waits for the operator.
  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: the proposed plan');
  const steps = card.getByRole('list', { name: 'Proposed steps' });
  await expect(steps).toContainText('Write NOTES.md with a greeting');
  await expect(steps).toContainText('Acceptance: NOTES.md holds the greeting');
  await expect(card.getByRole('button', { name: /Approve all/ })).toHaveCount(0);
  const log = page.getByRole('log', { name: 'Model output' });
  await expect(log).toContainText('One step will do.');
  await shot(page, 'agent-proposed-tree');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  // The model's text streams in while the step runs; then its shell call waits for approval.
  await expect(log).toContainText('I will write NOTES.md');
  await expect(log).toContainText(SPOKEN);
  await expect(card).toContainText('Approval needed: shell.run');
  await expect(card.getByRole('figure', { name: 'Command' })).toContainText(`echo '${GREETING}' > NOTES.md`);
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  const apply = page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ });
  await expect(apply).toBeEnabled();
  await expect(page.getByText(/Tokens: [\d,]+ in, [\d,]+ out/)).toBeVisible();
  await expect(page.getByRole('treeitem', { name: /Approved the plan/ })).toBeVisible();

  await page.getByRole('tab', { name: /Changes/ }).click();
  await changedFile(page, 'NOTES.md').click();
  await expect(page.getByRole('list', { name: 'Diff of NOTES.md' }).getByRole('listitem').filter({ hasText: GREETING })).toBeVisible();
  await shot(page, 'agent-diff');
  await apply.click();
  // Nothing is written into the project before the operator confirms.
  await page.getByRole('dialog', { name: 'Apply 1 file to the project?' }).getByRole('button', { name: 'Write 1 file' }).click();
  await expect(page.getByRole('region', { name: 'agent-notes', exact: true }).getByText('Applied', { exact: true })).toBeVisible();
  expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(`${GREETING}\n`);
});

test('the settings take a model and an API key, and show only that a key is set', async ({ page, agentsConsole }) => {
  await openConsole(page, agentsConsole.url);
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Model (provider:model)').fill('ollama:qwen2.5-coder');
  await dialog.getByLabel('API key').fill('sk-e2e-secret');
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Saved.');
  await expect(dialog.getByLabel('API key')).toHaveValue('');
  await expect(dialog.getByLabel('API key')).toHaveAttribute('placeholder', 'A key is set; type to replace it');
  // The environment of `agents serve` names a model, and it wins over the settings.
  await expect(dialog).toContainText('In effect: model openai-compatible:scripted (from the environment)');
  expect(await page.content()).not.toContain('sk-e2e-secret');
  await dialog.getByRole('button', { name: 'Close settings' }).click();
  await expect(dialog).toHaveCount(0);
});
