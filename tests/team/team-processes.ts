/** Real `agents serve --database` and `agents worker` processes for the team console tests. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { StreamEvent } from '../../shared/events';
import type { ServerMessage } from '../../shared/ws-protocol';
import { connect, type TestClient } from '../../main/web/test-support';
import { agents, BIN, ROOT } from '../cli/cli-harness';


export interface Agents {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], home: string, ready: (stdout: string, stderr: string) => boolean, env: Record<string, string> = {}): Promise<Agents> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, AGENTS_HOME: home, AGENTS_DATABASE_URL: '', ...env }, cwd: ROOT });
  let stdout = '';
  let stderr = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const agents: Agents = { child, stderr: () => stderr, exit };
  return new Promise((resolve, reject) => {
    const check = () => ready(stdout, stderr) && resolve(agents);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    void exit.then(({ code }) => reject(new Error(`agents ${args[0]} exited with ${code}: ${stdout}${stderr}`)));
  });
}

/** `agents serve --database URL --port 0` in `home` (with `env` added, a model's say), once it prints its URL. */
export async function serveTeam(url: string, home: string, projectRoot: string, env: Record<string, string> = {}): Promise<Agents & { console: URL }> {
  let found: URL | undefined;
  const ready = (stdout: string) => {
    const match = /^agents console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m.exec(stdout);
    if (match) found = new URL(match[1]);
    return found !== undefined;
  };
  const served = await start(['serve', '--port', '0', '--database', url, '--project-root', projectRoot], home, ready, env);
  return { ...served, console: found! };
}

/** `agents worker --database URL --name NAME` in `home`, once it takes runs. */
export function startTeamWorker(url: string, home: string, name: string): Promise<Agents> {
  return start(['worker', '--database', url, '--name', name, '--concurrency', '1'], home, (_stdout, stderr) => stderr.includes('taking runs'));
}

/** A WebSocket client of the served console. */
export function consoleClient(served: { console: URL }): Promise<TestClient> {
  return connect(`ws://${served.console.host}/ws?token=${served.console.searchParams.get('token')}`, served.console.origin);
}

export function data<T>(message: ServerMessage): T {
  if (message.type !== 'reply' || !message.ok) throw new Error(`expected an ok reply, got ${JSON.stringify(message)}`);
  return message.data as T;
}

/** The next event of the client's subscriptions that matches, keeping every event it passes in `seen`. */
export async function nextEvent(client: TestClient, seen: StreamEvent[], match: (event: StreamEvent) => boolean, timeoutMs = 30_000): Promise<StreamEvent> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; saw ${seen.map((e) => `${e.seq}:${e.type}`).join(' ')}`);
    const message = await client.next(left);
    if (message.type !== 'event') continue;
    const event = message.event as StreamEvent;
    seen.push(event);
    if (match(event)) return event;
  }
}

/** One `agents` command in `home`, to its end, with no team database from this process's environment. */
export const agentsCli = (args: string[], home: string) => agents(args, home, { AGENTS_DATABASE_URL: '' });

/** Stops a process with SIGTERM and resolves to how it exited (SIGKILL after `graceMs`). */
export async function stop(agents: Agents, graceMs = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (agents.child.exitCode !== null || agents.child.signalCode !== null) return agents.exit;
  agents.child.kill('SIGTERM');
  const timer = setTimeout(() => agents.child.kill('SIGKILL'), graceMs);
  const exited = await agents.exit;
  clearTimeout(timer);
  return exited;
}
