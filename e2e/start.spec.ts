import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from './fixtures';
import { planOption } from './helpers';

/** Starts `npm start` (its script) for the web console; resolves with the console's URL and what it said so far. */
async function npmStart(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; said: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.cjs'), '--serve', '--no-open', ...args], { cwd: ROOT, env: { ...process.env, CI: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /agents console: (http:\/\/\S+\?token=\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stderr}`)));
  });
  return { child, url, said: () => stderr };
}

async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

test('npm start, where Electron is missing, serves the console with the demo plans of a first start, taking projects from the roots it was given', async ({ page }) => {
  test.slow();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'agents-start-')));
  const home = join(base, 'data');
  const extra = join(base, 'projects');
  mkdirSync(extra);
  const first = await npmStart(['--project-root', extra], { AGENTS_HOME: home, AGENTS_MODEL: '', INIT_CWD: base });
  try {
    const stderr = first.said();
    expect(stderr).toMatch(/agents serve: demo plan add-license\.yaml: [0-9A-Z]{26}\n/);
    expect(stderr).toContain('agents serve: demo plan agent-changelog.yaml: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it');
    expect(stderr).toContain(`agents serve: plans created in the console take their projects from inside ${extra}, ${join(home, 'demo')}; --project-root DIR names others`);
    await page.goto(first.url);
    await expect(planOption(page, 'add-license')).toBeVisible();
    await expect(planOption(page, 'broken-docs')).toBeVisible();
  } finally {
    await stop(first.child);
  }
  // Without --project-root: the home folder and the folder npm start ran in (here outside the home); no demo plans again.
  const again = await npmStart([], { AGENTS_HOME: home, AGENTS_MODEL: '', INIT_CWD: base });
  try {
    const roots = relative(homedir(), base).startsWith('..') ? [homedir(), base] : [homedir()];
    expect(again.said()).toContain(`take their projects from inside ${[...roots, join(home, 'demo')].join(', ')};`);
    expect(again.said()).not.toContain('demo plan');
  } finally {
    await stop(again.child);
    rmSync(base, { recursive: true, force: true });
  }
});
