import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStrategize, toolResults } from '../tests/support/scripted-agent';
import { ScriptedModelServer, transcript } from '../tests/support/scripted-model-server';
import { expect, test } from './fixtures';
import { createPlanWithPicker, openConsole, planHeader, shot } from './helpers';

const server = new ScriptedModelServer();

// `agents serve` takes the model from its environment, as an operator's shell would give it.
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

// Tall enough that the Checks tab shows under the failure card, for the screenshots.
test.use({ viewport: { width: 1280, height: 1400 } });

let dir = '';
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A model that writes NOTES.md without the greeting the check asks for, until it is told the check failed. */
function forgetfulModel() {
  server.reset();
  server.respondWith((request) => {
    if (isStrategize(request)) {
      const step = { description: 'Write NOTES.md', rationale: 'The definition of done asks for notes', acceptance: 'NOTES.md exists' };
      return { text: 'One step will do.', toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
    }
    const content = transcript(request).includes('checks failed in the sandbox') ? '# Notes\n\nHello, reader.\n' : '# Notes\n';
    if (toolResults(request) === 0) return { toolCalls: [{ name: 'file_write', args: { path: 'NOTES.md', content } }] };
    return { text: 'Done.', toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md.' } }] };
  });
}

test('a plan’s checks stream in the console, one fails, the agent fixes it, the checks pass and the plan is applied', async ({ page, agentsConsole }) => {
  test.slow();
  forgetfulModel();
  dir = mkdtempSync(join(tmpdir(), 'agents-verify-e2e-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'notes.yaml');
  // The check prints as it goes and takes a moment: long enough to watch its output arrive. Its first
  // line comes after a pause, as the host sends output in batches once 100 ms have passed.
  writeFileSync(
    file,
    `name: verified-notes
project: ${JSON.stringify(project)}
agent: true
verify:
  - { name: greets the reader, run: "sleep 1; echo reading NOTES.md; sleep 3; cat NOTES.md; grep -q Hello NOTES.md", criteria: 1 }
definitionOfDone: |
  - NOTES.md greets the reader
  - The notes read well
`,
  );
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, file);
  const header = planHeader(page, 'verified-notes');
  await expect(header).toBeVisible();
  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: the proposed plan');

  // The operator watches the checks from their tab while the step runs.
  await page.getByRole('tab', { name: 'Checks' }).click();
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  const checks = page.getByRole('tabpanel', { name: 'Checks' });
  const check = checks.getByRole('listitem', { name: /^Check greets the reader/ });
  await expect(checks.getByRole('log', { name: 'Output of greets the reader' })).toContainText('reading NOTES.md');
  await expect(check).toHaveAttribute('aria-label', 'Check greets the reader: failed');
  await expect(check.getByLabel('Output of greets the reader')).toContainText('# Notes');
  await expect(check).toContainText('exit code 1');
  await expect(header).toContainText('Checks failed');
  await expect(header.getByRole('button', { name: 'Checks: 0 of 3 passed, 1 failed, 2 not checked' })).toBeVisible();
  const criteria = checks.getByRole('list', { name: 'Criteria' });
  await expect(criteria.getByRole('listitem').filter({ hasText: 'NOTES.md greets the reader' })).toContainText('failed');
  // A bullet no command checks, and the step's acceptance with no check, are not checked, never passed.
  await expect(criteria.getByRole('listitem').filter({ hasText: 'The notes read well' })).toContainText('not checked');
  await expect(criteria.getByRole('listitem').filter({ hasText: 'NOTES.md exists' })).toContainText('not checked');
  await shot(checks, 'verify-checks-failed');

  // Apply asks twice while a check fails, naming it; the operator cancels.
  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ }).click();
  await page.getByRole('dialog', { name: 'Apply 1 file to the project?' }).getByRole('button', { name: 'Write 1 file' }).click();
  const again = page.getByRole('alertdialog', { name: 'The checks failed. Apply anyway?' });
  await expect(again.getByRole('list', { name: 'Failed checks' })).toHaveText('greets the reader');
  await again.getByRole('button', { name: 'Cancel' }).click();
  await expect(again).toHaveCount(0);

  // The agent is given the failing output; the checks run again after its correction, and pass.
  const failure = page.getByRole('region', { name: 'Checks failed: greets the reader' });
  await failure.getByLabel('Note for the agent').fill('say hello');
  await failure.getByRole('button', { name: 'Ask the agent to fix it' }).click();
  await expect(header.getByRole('button', { name: 'Checks: 1 of 3 passed, 2 not checked' })).toBeVisible();
  await expect(header).toContainText('Ready to apply');
  expect(transcript(server.requests.at(-2) as Parameters<typeof transcript>[0])).toContain('Check "greets the reader"');
  await page.getByRole('tab', { name: 'Checks' }).click();
  await expect(check).toHaveAttribute('aria-label', 'Check greets the reader: passed');
  await expect(check.getByLabel('Output of greets the reader')).toContainText('Hello, reader.');
  await shot(checks, 'verify-checks-passed');

  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ }).click();
  await page.getByRole('dialog', { name: 'Apply 1 file to the project?' }).getByRole('button', { name: 'Write 1 file' }).click();
  await expect(header.getByText('Applied', { exact: true })).toBeVisible();
  expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toContain('Hello, reader.');
});
