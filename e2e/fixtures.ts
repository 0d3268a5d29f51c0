import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Page, test as base } from '@playwright/test';
import { pageScript } from '../tests/support/electron-ipc-stand-in.cjs';

export const ROOT = resolve(__dirname, '..');

export interface Console {
  /** The console URL with its token. */
  url: string;
  home: string;
  examples: string;
  /** The folder `agents serve` takes projects from (--project-root). */
  projectRoot: string;
  /** Runs the CLI against the same data directory. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

function run(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/agents.cjs'), ...args], { env: { ...process.env, AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '200' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * How the page reaches the host. `websocket`: the console of `agents serve`, in the browser.
 * `desktop`: the desktop app (out/main/index.js) on the Electron stand-in, its page given its bridge
 * by the real preload (out/preload/index.js) over IPC (tests/support/electron-ipc-stand-in.cjs).
 */
export type Transport = 'websocket' | 'desktop';

/** `projectRoot` null: `agents serve` as npm start runs it, in the repository with its default project roots. */
function startHost(transport: Transport, home: string, projectRoot: string | null): ChildProcess {
  const env = { ...process.env, AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '200' };
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  const roots = projectRoot === null ? [] : ['--project-root', projectRoot];
  // No demo plans: each test starts from an empty list and makes its own.
  if (transport === 'websocket') return spawn(process.execPath, [join(ROOT, 'bin/agents.cjs'), 'serve', '--port', '0', '--no-demo', ...roots], { cwd: ROOT, env, stdio });
  const standIn = join(ROOT, 'tests/support/electron-stand-in.cjs');
  return spawn(process.execPath, ['--require', standIn, join(ROOT, 'out/main/index.js')], { env: { ...env, AGENTS_ELECTRON_STAND_IN: 'serve' }, stdio });
}

/** The page of the desktop app's window: the real preload runs in it before the console's scripts. */
async function asDesktopWindow(page: Page, url: string) {
  const preload = readFileSync(join(ROOT, 'out/preload/index.js'), 'utf8');
  await page.context().addInitScript({ content: pageScript(preload, new URL(url).origin) });
}

/**
 * Each test gets a fresh data directory, a copy of the examples and its own host (`agents serve`,
 * or the desktop app in desktop mode), whose console may create plans over the tests' projects in
 * the temporary folder; with `test.use({ ownProjectRoot: true })`, only over those in an empty
 * folder of the test's own.
 */
export const test = base.extend<{ agentsConsole: Console; ownProjectRoot: boolean; defaultProjectRoots: boolean; transport: Transport }>({
  ownProjectRoot: [false, { option: true }],
  // `agents serve` as npm start runs it: in the repository, with its default project roots.
  defaultProjectRoots: [false, { option: true }],
  transport: ['websocket', { option: true }],
  agentsConsole: async ({ ownProjectRoot, defaultProjectRoots, transport, page }, use) => {
    const base = mkdtempSync(join(tmpdir(), 'agents-e2e-'));
    const home = join(base, 'home');
    const examples = join(base, 'examples');
    cpSync(join(ROOT, 'examples'), examples, { recursive: true, filter: (src) => !src.endsWith('large-refactor.yaml') });
    const projectRoot = ownProjectRoot ? join(base, 'projects') : tmpdir();
    mkdirSync(projectRoot, { recursive: true });
    const server = startHost(transport, home, defaultProjectRoots ? null : projectRoot);
    const url = await new Promise<string>((resolveUrl, reject) => {
      let out = '';
      server.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const match = (transport === 'websocket' ? /(http:\/\/\S+\?token=\S+)/ : /agents desktop stand-in: (http:\/\/\S+)/).exec(out);
        if (match) resolveUrl(match[1]);
      });
      server.stderr?.on('data', (d: Buffer) => process.stderr.write(d));
      server.on('exit', (code) => reject(new Error(`the host exited with ${code}: ${out}`)));
    });
    if (transport === 'desktop') await asDesktopWindow(page, url);
    await use({ url, home, examples, projectRoot, cli: (args) => run(args, home) });
    // The page goes before its host: a failed test's page snapshot, taken as its context closes,
    // shows the page as the test left it, not a console that has just lost its host.
    await page.context().close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  },
});

export { expect } from '@playwright/test';

/** Starts the CLI against the same data directory without waiting for it: another process, as from a terminal. */
export function startCli(args: string[], home: string): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'bin/agents.cjs'), ...args], { env: { ...process.env, AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '200' }, stdio: 'ignore' });
}
