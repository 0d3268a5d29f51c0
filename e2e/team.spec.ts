import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PostgresCluster, startPostgresCluster } from '../main/persistence/postgres/test-support/cluster';
import { expect, ROOT, test } from './fixtures';
import { openConsole, planHeader, planOption, shot } from './helpers';

/**
 * Team mode in the browser: PostgreSQL, `agents serve --database` and an `agents worker` (default
 * name worker@host), each its own process. Skips, saying why, where no PostgreSQL can be started.
 */
let cluster: PostgresCluster | undefined;
let noCluster = '';
const processes: ChildProcess[] = [];
const dirs: string[] = [];

test.beforeAll(async () => {
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    noCluster = (error as Error).message.split('\n')[0];
  }
});

test.afterAll(async () => {
  for (const child of processes) {
    if (child.exitCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** An `agents` process; resolves once `ready` matches what it printed. */
function agents(args: string[], home: string, ready: RegExp): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/agents.cjs'), ...args], { env: { ...process.env, AGENTS_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  processes.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (match) resolve(match[1] ?? match[0]);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`agents ${args[0]} exited with ${code}: ${out}`)));
  });
}

test('a console of the team shows the queue, the worker that runs a plan, and records who answered from where', async ({ page }) => {
  test.skip(!cluster, `no PostgreSQL could be started: ${noCluster}`);
  test.slow();
  const url = cluster!.url;
  const base = mkdtempSync(join(tmpdir(), 'agents-e2e-team-'));
  dirs.push(base);
  const project = join(base, 'projects', 'demo');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  writeFileSync(join(project, 'stale.txt'), 'old\n');
  const serveHome = join(base, 'console');
  mkdirSync(serveHome);
  writeFileSync(join(serveHome, 'settings.json'), `${JSON.stringify({ operator: 'ada' })}\n`, { mode: 0o600 });
  const consoleUrl = await agents(['serve', '--port', '0', '--database', url, '--project-root', join(base, 'projects')], serveHome, /agents console: (http:\/\/\S+\?token=\S+)/);
  await agents(['worker', '--database', url, '--concurrency', '1'], join(base, 'worker'), /taking runs/);

  const file = join(base, 'team-demo.yaml');
  writeFileSync(
    file,
    [
      'name: team-demo',
      `project: ${JSON.stringify(project)}`,
      'automationProfile: supervised',
      'definitionOfDone:',
      '  - step: Write the notes',
      '    tools: [{ tool: file.write, args: { path: NOTES.md, content: "# Notes\\n" } }]',
      '  - step: Let the build settle',
      '    tools: [{ tool: shell.run, args: { command: "sleep 8" } }]',
      '  - step: Remove the stale file',
      '    tools: [{ tool: file.delete, args: { path: stale.txt } }]',
    ].join('\n'),
  );
  // Created from a terminal of the team (another process), shown by the console from the database.
  await agents(['plan', 'create', file, '--database', url], join(base, 'cli'), /\b(01[0-9A-Z]{24})\b/);

  await openConsole(page, consoleUrl);
  const team = page.getByRole('status', { name: 'Team', exact: true });
  await expect(team).toHaveText('Team: 0 queued · 0 running · 1 worker');
  await planOption(page, 'team-demo').click();
  const header = planHeader(page, 'team-demo');
  await header.getByRole('toolbar', { name: 'Plan controls' }).getByRole('button', { name: /^Run\b/ }).click();

  // Queued for the worker and run there; the console follows it through the database's feed. The
  // shell call waits for an answer, which releases the worker.
  const card = page.getByRole('region', { name: /^Approval needed/ });
  await expect(card).toContainText('Approval needed: shell.run', { timeout: 30_000 });
  await expect(header).not.toContainText('Running on');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();

  // The answer queues the run again; a worker takes it and runs the sleep.
  await expect(header).toContainText(`Running on worker@${hostname()}`, { timeout: 20_000 });
  await expect(team).toHaveText('Team: 0 queued · 1 running · 1 worker');
  // The run is the worker's: the console's step controls reach no run of its own.
  const controls = header.getByRole('toolbar', { name: 'Plan controls' });
  for (const name of ['Step', 'Continue', 'Pause']) await expect(controls.getByRole('button', { name: new RegExp(`^${name}\\b`) })).toBeDisabled();
  await shot(page, 'team-running-on-worker');

  await expect(card).toContainText('Approval needed: file.delete', { timeout: 30_000 });
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(page.getByRole('option', { name: /team-demo/ })).toContainText('Ready to apply', { timeout: 30_000 });
  await expect(header).not.toContainText('Running on');
  await expect(team).toHaveText('Team: 0 queued · 0 running · 1 worker', { timeout: 5_000 });

  await page.getByRole('treeitem', { name: /Approved shell\.run/ }).click();
  const details = page.getByRole('complementary', { name: 'Decision details' });
  await expect(details.getByRole('definition').filter({ hasText: 'ada' })).toBeVisible();
  await expect(details.getByRole('definition').filter({ hasText: hostname() })).toBeVisible();
  await shot(page, 'team-answer-recorded');

  // Settings: the operator's name, and the team database (none in this console's settings: it came from --database).
  await page.getByRole('button', { name: 'Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await expect(settings.getByLabel('Operator name')).toHaveValue('ada');
  await expect(settings.getByLabel('Team database')).toHaveValue('');
  await settings.getByLabel('Team database').fill('postgresql://agents:s3cret@db.example:5432/agents');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings).toContainText('Set: postgresql://agents:***@db.example:5432/agents.');
  await expect(settings).not.toContainText('s3cret');
  await expect(settings.getByRole('button', { name: 'Leave the team database' })).toBeVisible();
  await shot(settings, 'team-settings');
});
