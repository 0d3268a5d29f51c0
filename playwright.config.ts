import { defineConfig } from '@playwright/test';
import type { Transport } from './e2e/fixtures';

/** Step mode, review and partial apply, a failure fixed and retried, an approval, a refused action, a run from the CLI shown live. */
const DESKTOP_FLOWS = ['console.spec.ts', 'review.spec.ts', 'fix-in-console.spec.ts', 'approvals.spec.ts', 'refusals.spec.ts', 'live.spec.ts'];
/** What only the desktop app has: its system notifications, menu and window. */
const DESKTOP_ONLY = ['desktop-shell.spec.ts'];

/** Chromium from Debian drives the console served by `agents serve`; no browser is downloaded. */
export default defineConfig<{ transport: Transport }>({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  // One more try: a test that passes on it is listed as flaky, so an intermittent failure is seen without failing the run.
  retries: 1,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    viewport: { width: 1440, height: 900 },
    trace: 'off',
  },
  projects: [
    { name: 'web', testIgnore: DESKTOP_ONLY },
    // The operator flows again in the desktop app, over the real preload and IPC binding
    // (e2e/fixtures.ts, `transport`); only these, to keep the run short.
    { name: 'desktop', testMatch: [...DESKTOP_FLOWS, ...DESKTOP_ONLY], use: { transport: 'desktop' } },
  ],
});
