import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../shared/events';
import { connect } from './test-support';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/agents.cjs');

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: URL;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `agents serve --port 0` as its own process, resolved once it has printed its URL. */
function serve(home: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--project-root', home], { env: { ...process.env, AGENTS_HOME: home }, cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /^agents console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m.exec(stdout);
      if (match) resolve({ child, url: new URL(match[1]), stderr: () => stderr, exit });
    });
    void exit.then(({ code }) => reject(new Error(`agents serve exited with ${code}: ${stdout}${stderr}`)));
  });
}

describe('agents serve as a process', () => {
  const dirs: string[] = [];
  const children: ChildProcessWithoutNullStreams[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agents-serve-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const served = await serve(tempDir());
    children.push(served.child);
    const client = await connect(`ws://${served.url.host}/ws?token=${served.url.searchParams.get('token')}`, served.url.origin);
    expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    served.child.kill('SIGTERM');
    expect(await served.exit).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toContain('SIGTERM, shutting down');
    expect((await client.closed).code).toBe(1001);
  }, 30_000);

  it('on SIGINT pauses a running plan between steps, keeps what it did, and the plan can be retried after a restart', async () => {
    const home = tempDir();
    const project = path.join(home, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    const served = await serve(home);
    children.push(served.child);
    const client = await connect(`ws://${served.url.host}/ws?token=${served.url.searchParams.get('token')}`, served.url.origin);
    const content = [
      'name: slow',
      `project: ${JSON.stringify(project)}`,
      'automationProfile: trusted',
      'definitionOfDone:',
      '  - step: Write the first file',
      '    tools: [{ tool: file.write, args: { path: one.txt, content: "1" } }]',
      '  - step: Take a while',
      '    tools: [{ tool: shell.run, args: { command: "sleep 1" } }]',
      '  - step: Write the second file',
      '    tools: [{ tool: file.write, args: { path: two.txt, content: "2" } }]',
    ].join('\n');
    const created = await client.call('plans.create', { content });
    const planId = (created as { data: { plan: { id: string } } }).data.plan.id;
    client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId, afterSeq: 0 } }));
    await client.call('plans.run', { planId });
    // Signal while the shell step runs.
    for (;;) {
      const message = await client.next(10_000);
      const event = message.type === 'event' ? (message.event as StreamEvent) : null;
      if (event?.type === 'tool_call_started' && event.data.tool === 'shell.run') break;
    }
    served.child.kill('SIGINT');
    expect(await served.exit).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toMatch(new RegExp(`plan ${planId} paused between steps`));

    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, AGENTS_HOME: home }, cwd: ROOT, encoding: 'utf8' });
    const shown = JSON.parse(cli('plan', 'show', planId, '--json').stdout) as { processingState: string; errorDetails: { category?: string } };
    expect(shown).toMatchObject({ processingState: 'errored', errorDetails: { category: 'interrupted' } });
    const retried = cli('plan', 'retry', planId, '--json');
    expect(retried.status).toBe(0);
    const diff = JSON.parse(cli('plan', 'diff', planId, '--json').stdout) as { entries: { path: string }[] };
    expect(diff.entries.map((e) => e.path).sort()).toEqual(['one.txt', 'two.txt']);
  }, 60_000);

  it('refuses a bad port with exit status 2 and a one-line message', () => {
    const result = spawnSync(process.execPath, [BIN, 'serve', '--port', 'eighty'], { env: { ...process.env, AGENTS_HOME: tempDir() }, cwd: ROOT, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('error: --port: must be a whole number from 0 to 65535, not "eighty"');
  }, 30_000);
});
