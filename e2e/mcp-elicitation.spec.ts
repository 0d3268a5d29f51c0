// An MCP server's question in the console: the reference "everything" server asks mid-call, the
// approval card shows it as a form (labels, required, defaults filled in, choices as selects), and
// accepting sends the operator's answer: the call runs again with it and the step completes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStrategize, toolResults } from '../tests/support/scripted-agent';
import { expect, ROOT, test } from './fixtures';
import { createPlanWithPicker, foldersRemovedAfterEach, openConsole, scriptedModelForServe, seriousViolations } from './helpers';

const server = scriptedModelForServe();
const tempDirs = foldersRemovedAfterEach();

/** One step: the call that asks, then finish. */
function askingModel(call: { name: string; args: Record<string, unknown> } = { name: 'everything_trigger-elicitation-request', args: {} }, step = 'Ask the operator') {
  server.reset();
  server.respondWith((request) => {
    if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: step, rationale: 'The server needs a name', acceptance: 'answered' }] } }] };
    if (toolResults(request) === 0) return { toolCalls: [call] };
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
  });
}

function writePlan(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-elicit-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'elicit.yaml');
  const command = join(ROOT, 'node_modules/.bin/mcp-server-everything');
  writeFileSync(
    file,
    `name: elicit
project: ${JSON.stringify(project)}
automationProfile: { base: trusted, allow: ["everything.*"] }
agent: true
definitionOfDone: the server was answered
mcp:
  servers:
    everything: { command: ${JSON.stringify(command)}, args: [] }
`,
  );
  return file;
}

test("an operator answers an MCP server's question in the approval card's form, and the step completes", async ({ page, agentsConsole }) => {
  test.slow();
  askingModel();
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, writePlan());
  await expect(page.getByRole('heading', { name: 'elicit' })).toBeVisible();
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  const card = page.getByRole('region', { name: /^(Approval|Input) needed/ });
  await expect(card).toContainText('Approval needed: the proposed plan');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  await expect(card).toContainText('Input needed: everything asks');
  const form = card.getByRole('form', { name: 'Answer to everything' });
  await expect(form).toContainText('Please provide inputs for the following fields:');
  // Defaults filled in; a choice is a select.
  await expect(form.getByLabel('Integer')).toHaveValue('42');
  await expect(form.getByLabel('Untitled Single Select Enum')).toHaveValue('Monica');
  await expect(form.getByRole('button', { name: 'Decline' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Decline' })).toBeVisible();
  // Every field has its label; nothing serious for axe while the form is shown.
  expect(await seriousViolations(page)).toEqual([]);

  // The required name left empty: the form says so and sends nothing.
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(form.getByRole('alert')).toHaveText('"name" is required (String)');

  await form.getByLabel('String (required)').fill('Ada');
  await form.getByLabel('Integer').fill('7');
  await form.getByLabel('Untitled Single Select Enum').selectOption('Joey');
  await form.getByLabel('Boolean').check();
  await form.getByRole('button', { name: 'Accept' }).click();

  const apply = page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ });
  await expect(apply).toBeEnabled({ timeout: 60_000 });
  const answer = String(server.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);
  expect(answer).toContain('- Name: Ada');
  expect(answer).toContain('- Agreed to terms: true');
  expect(answer).toContain('- Favorite Integer: 7');
  const { plans } = JSON.parse((await agentsConsole.cli(['plan', 'list', '--json'])).stdout) as { plans: { id: string }[] };
  const { approvals } = JSON.parse((await agentsConsole.cli(['plan', 'approvals', plans[0].id, '--json'])).stdout) as { approvals: { kind: string; status: string; args: Record<string, unknown> }[] };
  expect(approvals.find((a) => a.kind === 'input')).toMatchObject({ status: 'approved', args: { name: 'Ada', integer: 7, check: true, untitledSingleSelectEnum: 'Joey' } });
});

test("an operator declines an MCP server's question with a reason: the server is told, and the step goes on", async ({ page, agentsConsole }) => {
  test.slow();
  askingModel();
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, writePlan());
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  const card = page.getByRole('region', { name: /^(Approval|Input) needed/ });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toContainText('Input needed: everything asks');
  await card.getByLabel('Reason for declining').fill('not for this plan');
  await card.getByRole('button', { name: 'Decline' }).click();

  await expect(page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ })).toBeEnabled({ timeout: 60_000 });
  const answer = String(server.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);
  expect(answer).toContain('User declined to provide the requested information');
});

test("an operator cancels an MCP server's question: the server is told it was cancelled, and the step goes on", async ({ page, agentsConsole }) => {
  test.slow();
  askingModel();
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, writePlan());
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  const card = page.getByRole('region', { name: /^(Approval|Input) needed/ });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(card).toContainText('Input needed: everything asks');
  await expect(card).toContainText(/cancelled at .* unless answered/);
  // No reason needed to cancel.
  await card.getByRole('button', { name: 'Cancel', exact: true }).click();

  await expect(page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ })).toBeEnabled({ timeout: 60_000 });
  const answer = String(server.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);
  expect(answer).toContain('User cancelled the elicitation dialog');
  const { plans } = JSON.parse((await agentsConsole.cli(['plan', 'list', '--json'])).stdout) as { plans: { id: string }[] };
  const { approvals } = JSON.parse((await agentsConsole.cli(['plan', 'approvals', plans[0].id, '--json'])).stdout) as { approvals: { kind: string; status: string; cancelled?: boolean }[] };
  expect(approvals.find((a) => a.kind === 'input')).toMatchObject({ status: 'rejected', cancelled: true });
});

test("a running MCP call's progress is a bar on its step in the tree, gone when the call ends", async ({ page, agentsConsole }) => {
  test.slow();
  askingModel({ name: 'everything_trigger-long-running-operation', args: { duration: 10, steps: 10 } }, 'Run the long operation');
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, writePlan());
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  await page.getByRole('region', { name: /^Approval needed/ }).getByRole('button', { name: 'Approve', exact: true }).click();

  const step = page.getByRole('treeitem', { name: /Run the long operation/ });
  const bar = step.getByRole('progressbar', { name: /^everything\.trigger-long-running-operation: \d+ of 10$/ });
  await expect(bar).toBeVisible({ timeout: 30_000 });
  await expect(step).toContainText(/\d+\/10 \(\d+%\)/);
  const first = Number(await bar.getAttribute('value'));
  // It moves as the server reports.
  await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 15_000 }).toBeGreaterThan(first);
  await page.screenshot({ path: test.info().outputPath('call-progress.png') });

  await expect(page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ })).toBeEnabled({ timeout: 60_000 });
  await expect(step.getByRole('progressbar')).toHaveCount(0);
});
