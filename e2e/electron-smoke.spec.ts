import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { type Bridge, CHANNELS } from '../shared/contract';

const ROOT = path.resolve(__dirname, '..');

/** Electron's executable if it is on disk; `require('electron')` would try to download it instead. */
function electronBinary(): string | null {
  const dir = path.join(ROOT, 'node_modules/electron');
  const pathFile = path.join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(dir, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

const binary = electronBinary();

test.describe('the desktop app', () => {
  test.skip(binary === null, "Electron's binary is not installed here (node_modules/electron/dist), so the desktop app cannot start");

  let home: string;

  test.beforeAll(() => {
    if (!['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'].every((f) => existsSync(path.join(ROOT, f)))) {
      const built = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
      expect(built.status).toBe(0);
    }
  });
  test.beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), 'agents-electron-'));
  });
  test.afterEach(() => rmSync(home, { recursive: true, force: true }));

  test('opens the console over app:// with a sandboxed, isolated page that reaches the host only through the bridge', async () => {
    const app = await electron.launch({ executablePath: binary!, args: [ROOT], cwd: ROOT, env: { ...process.env, AGENTS_HOME: home } });
    try {
      const page = await app.firstWindow();
      await expect(page).toHaveURL(/^app:\/\/console\//);

      // No Node in the page; the bridge has the contract's calls and nothing else.
      const globals = await page.evaluate(() => {
        const g = globalThis as Record<string, unknown>;
        return [typeof g.require, typeof g.process, typeof g.ipcRenderer, Object.keys(g.agents as object).sort()];
      });
      expect(globals.slice(0, 3)).toEqual(['undefined', 'undefined', 'undefined']);
      expect(globals[3]).toEqual([...CHANNELS, 'subscribe'].sort());
      const info = await page.evaluate(() => (window as unknown as { agents: Bridge }).agents['app.info']({}));
      expect(info.dataDir).toBe(home);
      const refused = await page.evaluate(() =>
        (window as unknown as { agents: Bridge }).agents['plans.get']({ planId: '' }).then(
          () => null,
          (error: { payload?: { code: string } }) => error.payload?.code,
        ),
      );
      expect(refused).toBe('invalid_request');

      // New windows and navigation away are denied.
      await page.evaluate(() => window.open('https://example.com/'));
      await page.evaluate(() => {
        window.location.href = 'https://example.com/';
      });
      await expect(page).toHaveURL(/^app:\/\/console\//);
      expect(app.windows()).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
