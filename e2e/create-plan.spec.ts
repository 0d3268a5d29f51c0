import AxeBuilder from '@axe-core/playwright';
import { cpSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { expect, ROOT, test } from './fixtures';
import { openConsole, pickPlanFile, planHeader, planOption, shot } from './helpers';

// The console serves projects from a folder of this test's own, where it puts the demo project.
test.use({ ownProjectRoot: true });

test('an operator uploads an example plan, sees its project folder found in the project root, fixes a wrong folder, creates the plan and runs it', async ({
  page,
  agentsConsole,
}) => {
  const { examples, projectRoot, url } = agentsConsole;
  cpSync(join(examples, 'demo-project'), join(projectRoot, 'demo-project'), { recursive: true });
  const root = realpathSync(projectRoot);
  const demo = join(root, 'demo-project');
  await openConsole(page, url);

  const form = await pickPlanFile(page, join(examples, 'add-license.yaml'));
  const folder = form.getByLabel('Project folder');
  // The plan's `./demo-project` is relative to a file the browser does not have: found under the root.
  await expect(folder).toHaveValue(demo);
  await expect(form.getByText(`Found: ${demo}`)).toBeVisible();
  await expect(folder).toHaveAttribute('aria-invalid', 'false');
  await shot(form, 'create-plan-form');
  const { violations } = await new AxeBuilder({ page }).include('[role="dialog"]').analyze();
  expect(violations.map((v) => v.id)).toEqual([]);

  await folder.fill('demo-projekt');
  await expect(form.getByText(`not a directory: ${join(root, 'demo-projekt')}`)).toBeVisible();
  await expect(folder).toHaveAttribute('aria-invalid', 'true');
  await folder.fill('/usr/share');
  // The roots: the test's own, and the data folder's demo copy (the console's own plans).
  await expect(form.getByText(`must be a folder inside one of the project roots (${root}, ${join(agentsConsole.home, 'demo')}), not /usr/share`)).toBeVisible();
  await shot(form, 'create-plan-form-wrong-folder');

  await folder.fill(demo);
  await expect(form.getByText(`Found: ${demo}`)).toBeVisible();
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(form).toHaveCount(0);
  await expect(planOption(page, 'add-license')).toBeVisible();

  const header = planHeader(page, 'add-license');
  await page.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await expect(header.getByText('6 of 6 steps done')).toBeVisible();
});

test("Create waits for the host's answer about the project, which lays out the form as it stays, so a press is not lost to the button moving", async ({ page, agentsConsole }) => {
  const { examples, projectRoot, url } = agentsConsole;
  cpSync(join(examples, 'demo-project'), join(projectRoot, 'demo-project'), { recursive: true });
  const demo = join(realpathSync(projectRoot), 'demo-project');
  // The host's answers to the form's project check wait here until the test lets them through.
  const held: (() => void)[] = [];
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    const checks = new Set<number>();
    ws.onMessage((message) => {
      const call = JSON.parse(String(message)) as { id: number; channel?: string };
      if (call.channel === 'plans.checkProject') checks.add(call.id);
      server.send(message);
    });
    server.onMessage((message) => {
      const reply = JSON.parse(String(message)) as { id?: number };
      if (reply.id !== undefined && checks.has(reply.id)) held.push(() => ws.send(message));
      else ws.send(message);
    });
  });
  await openConsole(page, url);
  const form = await pickPlanFile(page, join(examples, 'add-license.yaml'));
  const folder = form.getByLabel('Project folder');
  const create = form.getByRole('button', { name: 'Create', exact: true });

  // The host answers a second after the form asks; the operator presses Create as soon as it is offered.
  await expect.poll(() => held.length).toBe(1);
  const answer = setTimeout(() => held.shift()!(), 1000);
  await expect(create).toBeEnabled();
  const offered = (await create.boundingBox())!;
  await page.mouse.move(offered.x + offered.width / 2, offered.y + offered.height / 2);
  await page.mouse.down();
  await expect(form.getByText(`Found: ${demo}`)).toBeVisible();
  // The field keeps its width beside the notes the answer added.
  expect((await folder.boundingBox())!.width).toBeGreaterThan(200);
  await page.mouse.up();
  clearTimeout(answer);
  await expect(form).toHaveCount(0);
  await expect(planOption(page, 'add-license')).toBeVisible();
});

test('the form names each problem of a plan the host refuses, and creates nothing', async ({ page, agentsConsole }) => {
  const { cli, url } = agentsConsole;
  await openConsole(page, url);
  const plan = [
    'name: typo',
    'definitionOfDone:',
    '  - step: Write',
    '    tools:',
    '      - tool: file.write',
    '        args: { pth: a.txt, content: x }',
    '  - step: Twiddle',
    '    tools:',
    '      - tool: file.frobnicate',
    '',
  ].join('\n');
  const form = await pickPlanFile(page, { name: 'typo.yaml', mimeType: 'text/yaml', buffer: Buffer.from(plan) });
  await expect(form.getByText('Empty: the folder the plan file names, if any.')).toBeVisible();
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const alert = form.getByRole('alert');
  await expect(alert).toContainText('step 1, call 1 (file.write): unknown field "pth"; missing field "path"');
  await expect(alert).toContainText('step 2, call 1: unknown tool "file.frobnicate"; the tools are file.delete, file.edit');
  await shot(form, 'create-plan-form-refused');
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  expect(JSON.parse((await cli(['plan', 'list', '--json'])).stdout)).toEqual({ plans: [] });
});

test.describe('as npm start serves it: from the repository, with the default project roots', () => {
  test.use({ ownProjectRoot: false, defaultProjectRoots: true });

  test('a plan picked from examples/ or from the demo copy finds its project; a relative folder resolves where the form says; an old error goes once the folder is right', async ({ page, agentsConsole }) => {
    const { home, url } = agentsConsole;
    const examples = join(ROOT, 'examples');
    await openConsole(page, url);

    // From the repository's examples/: `./demo-project` beside the file, as on the command line.
    const form = await pickPlanFile(page, join(examples, 'broken-docs.yaml'));
    const folder = form.getByLabel('Project folder');
    await expect(folder).toHaveValue(join(examples, 'demo-project'));
    await expect(form.getByText(`Found: ${join(examples, 'demo-project')}`)).toBeVisible();
    await expect(form.getByTestId('create-plan-relative')).toContainText(`A relative folder is looked for in ${examples}, then `);

    // A wrong folder is refused on Create; the refusal goes once the field names a folder that is there.
    await folder.fill('demo-projekt');
    await expect(form.getByText(/^not a directory: tried /)).toBeVisible();
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(form.getByRole('alert')).toContainText('not a directory');
    await folder.fill('examples/demo-project');
    await expect(form.getByText(`Found: ${join(examples, 'demo-project')}`)).toBeVisible();
    await expect(form.getByRole('alert')).toHaveCount(0);
    // An absolute folder inside a root is taken as it is.
    await folder.fill(join(examples, 'demo-project'));
    await expect(form.getByText(`Found: ${join(examples, 'demo-project')}`)).toBeVisible();
    await shot(form, 'create-plan-form-from-examples');
    await page.keyboard.press('Escape');

    // From the demo copy in the data folder (where a first start puts it): its own demo project.
    const demo = join(home, 'demo');
    cpSync(examples, demo, { recursive: true });
    await pickPlanFile(page, join(demo, 'add-license.yaml'));
    await expect(folder).toHaveValue(join(demo, 'demo-project'));
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(planOption(page, 'add-license')).toBeVisible();
    const [plan] = JSON.parse((await agentsConsole.cli(['plan', 'list', '--json'])).stdout).plans as { projectPath: string }[];
    expect(plan.projectPath).toBe(join(demo, 'demo-project'));
  });
});
