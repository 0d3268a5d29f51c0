import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from './fixtures';
import { planOption } from './helpers';

test('npm start, where Electron is missing, serves the console with the demo plans of a first start, taking projects from the roots it was given', async ({ page }) => {
  test.slow();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'agents-start-')));
  const home = join(base, 'data');
  const extra = join(base, 'projects');
  mkdirSync(extra);
  const start = spawn(process.execPath, [join(ROOT, 'scripts/start.cjs'), '--serve', '--no-open', '--project-root', extra], {
    cwd: ROOT,
    env: { ...process.env, AGENTS_HOME: home, AGENTS_MODEL: '', CI: '1', INIT_CWD: base },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  start.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      start.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /agents console: (http:\/\/\S+\?token=\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      start.on('exit', (code) => reject(new Error(`npm start exited with ${code}: ${stderr}`)));
    });
    expect(stderr).toMatch(/agents serve: demo plan add-license\.yaml: [0-9A-Z]{26}\n/);
    expect(stderr).toContain('agents serve: demo plan agent-changelog.yaml: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it');
    expect(stderr).toContain(`agents serve: plans created in the console take their projects from inside ${extra}, ${join(home, 'demo')}; --project-root DIR names others`);
    await page.goto(url);
    await expect(planOption(page, 'add-license')).toBeVisible();
    await expect(planOption(page, 'broken-docs')).toBeVisible();
  } finally {
    const exited = new Promise((resolve) => start.once('exit', resolve));
    start.kill('SIGTERM');
    await exited;
    rmSync(base, { recursive: true, force: true });
  }
});
