import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStrategize, toolResults } from '../tests/support/scripted-agent';
import { expect, ROOT, test } from './fixtures';
import { changedFile, createPlanWithPicker, foldersRemovedAfterEach, openConsole, scriptedModelForServe } from './helpers';

const server = scriptedModelForServe();
const NOTES = '# Notes\n\nWritten through an MCP server.\n';


const tempDirs = foldersRemovedAfterEach();

/** A model that proposes one step and writes NOTES.md through the `files` MCP server. */
function mcpWritingModel() {
  server.reset();
  server.respondWith((request) => {
    if (isStrategize(request)) {
      const step = { description: 'Write NOTES.md through the files server', rationale: 'The definition of done asks for notes', acceptance: 'NOTES.md exists' };
      return { toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
    }
    if (toolResults(request) === 0) return { text: 'Writing the notes.', toolCalls: [{ name: 'files_write_file', args: { path: 'NOTES.md', content: NOTES } }] };
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md through the files server.' } }] };
  });
}

/** An agent plan whose plan file brings the real filesystem MCP server from npm. */
function writeMcpPlan(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-mcp-e2e-'));
  tempDirs.push(dir);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(dir, 'agent-mcp.yaml');
  const command = join(ROOT, 'node_modules/.bin/mcp-server-filesystem');
  writeFileSync(
    file,
    `name: agent-mcp
project: ${JSON.stringify(project)}
automationProfile: trusted
agent: true
definitionOfDone: NOTES.md exists
mcp:
  servers:
    files: { command: ${JSON.stringify(command)}, args: ["."] }
`,
  );
  return file;
}

test('an operator approves a call of an MCP server on the approval card, which names the server, the tool and its arguments', async ({ page, agentsConsole }) => {
  test.slow();
  mcpWritingModel();
  await openConsole(page, agentsConsole.url);
  await createPlanWithPicker(page, writeMcpPlan());
  await expect(page.getByRole('heading', { name: 'agent-mcp' })).toBeVisible();
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: the proposed plan');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  // trusted asks for no sandbox tool, yet an MCP tool waits.
  await expect(card).toContainText('Approval needed: files.write_file');
  const mcp = card.getByTestId('approval-mcp');
  await expect(mcp).toContainText('MCP server files');
  await expect(mcp).toContainText('tool write_file');
  await expect(mcp).toContainText('Create a new file');
  const args = card.getByRole('definition').first();
  await expect(args).toHaveText('NOTES.md');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  const apply = page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Apply\b/ });
  await expect(apply).toBeEnabled();
  await page.getByRole('tab', { name: /Changes/ }).click();
  await changedFile(page, 'NOTES.md').click();
  await expect(page.getByRole('list', { name: 'Diff of NOTES.md' }).getByRole('listitem').filter({ hasText: 'Written through an MCP server.' })).toBeVisible();
  const { plans } = JSON.parse((await agentsConsole.cli(['plan', 'list', '--json'])).stdout) as { plans: { id: string }[] };
  const tree = JSON.parse((await agentsConsole.cli(['plan', 'tree', plans[0].id, '--json'])).stdout) as { invocations: { tool: string; ok: boolean }[] };
  expect(tree.invocations.map((i) => [i.tool, i.ok])).toEqual([['files.write_file', true]]);
  expect(readFileSync(join(agentsConsole.home, 'sandboxes', plans[0].id, 'NOTES.md'), 'utf8')).toBe(NOTES);
});
