import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ValidationError } from '../../shared/errors';
import type { App } from '../app/open-app';
import { consoleWiring } from '../app/team/team-status';
import { redactText } from '../../shared/redact';
import { settleRuns } from '../host/settle-runs';
import type { ConfinementProbe } from '../app/plan-service';
import { isLoopbackHost } from '../web/auth';
import { checkProjectDir } from '../app/project-policy';
import { examplesDir } from './demo-command';
import { seedDemoPlans } from './demo-plans';
import { startServer, type RunningServer } from '../web/server';
import type { CliIo } from './run-command';

export interface ServeOptions {
  host: string;
  port: string;
  open?: boolean;
  /** Comma-separated host names clients use to reach a non-loopback bind; required for one. */
  allowRemote?: string;
  /** Folders the projects of plans created in the console must lie inside; default: the user's home and the working folder. */
  projectRoot?: string[];
  /** false (`--no-demo`): do not create the demo plans on a first start. */
  demo?: boolean;
}

export interface ServeHooks {
  /** Where SIGINT/SIGTERM come from; tests pass their own emitter. */
  signals?: Pick<NodeJS.Process, 'once' | 'off'>;
  /** Opens a URL in a browser; default: xdg-open, open or start. */
  openBrowser?: (url: string) => void;
  /** Finds shell.run's confinement, to warn at start when there is none; default: the real detection. */
  detectConfinement?: () => Promise<ConfinementProbe>;
  /** Called once the server listens, before waiting for a signal. */
  onListening?: (server: RunningServer) => void;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ValidationError('--port', `must be a whole number from 0 to 65535, not "${value}"`);
  }
  return port;
}

/** `agents serve`: the console over HTTP and a WebSocket until SIGINT or SIGTERM. */
export async function serveCommand(app: App, opts: ServeOptions, io: CliIo, hooks: ServeHooks = {}): Promise<void> {
  const port = parsePort(opts.port);
  const host = opts.host.trim();
  if (host === '') throw new ValidationError('--host', 'must not be empty');
  const remoteNames = opts.allowRemote === undefined ? undefined : opts.allowRemote.split(',').map((n) => n.trim()).filter(Boolean);
  if (!isLoopbackHost(host) && remoteNames === undefined) {
    throw new ValidationError('--host', `${host} is not a loopback address; to serve beyond this machine add --allow-remote NAMES (the host names clients use to reach it)`);
  }
  if (remoteNames !== undefined && remoteNames.length === 0) throw new ValidationError('--allow-remote', 'needs the host names clients use, comma-separated');
  const demo = join(app.dataDir, 'demo');
  if (opts.demo !== false && !app.team) await seedDemoPlans(app, demo, (line) => io.stderr(`agents serve: ${line}\n`));
  // The demo copy in the data folder is always a root: its plans are the console's own.
  const given = (opts.projectRoot ?? []).map((root) => resolve(root));
  const projectRoots = [...new Set([...(given.length > 0 ? given : defaultProjectRoots()), demo])];
  const log = (message: string, error?: unknown) => {
    const detail = error instanceof Error ? (error.stack ?? error.message) : error === undefined ? '' : String(error);
    io.stderr(`agents serve: ${message}${detail ? `: ${detail}` : ''}\n`);
  };
  let server: RunningServer;
  try {
    server = await startServer({
      service: app.service,
      ...consoleWiring(app),
      host,
      port,
      dataDir: app.dataDir,
      projectRoots,
      planFolders: [demo, examplesDir()],
      allowRemote: remoteNames === undefined ? undefined : { names: remoteNames },
      log,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ValidationError('--port', `${port} is in use on ${host}; pick another, or --port 0 for a free one`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ValidationError('--host', `cannot listen on ${host}`);
    throw error;
  }
  if (remoteNames !== undefined) {
    io.stderr(
      `agents serve: warning: serving beyond this machine over plain HTTP; the access token travels in clear text, and anyone who reads it on the network controls the console (answering only Host ${remoteNames.join(', ')} and the loopback names)\n`,
    );
  }
  // The check (as root, a walk of the system folders for what to hide) runs while the console is
  // already served; it only warns.
  const confinementChecked = (hooks.detectConfinement ?? (() => app.service.shellConfinement()))().then(
    (confinement) => {
      if (!confinement.ok) {
        io.stderr(`agents serve: shell.run cannot be confined here (${confinement.reason}); it will refuse to run unless a plan's profile sets allowUnconfinedShell: true\n`);
      }
    },
    (error: unknown) => log('checking shell.run confinement failed', error),
  );
  io.stderr(`agents serve: plans created in the console take their projects from inside ${projectRoots.join(', ')}; --project-root DIR names others\n`);
  if (!server.rendererBuilt) io.stderr('agents serve: the console is not built; run `npm run build` (the API is served meanwhile)\n');
  for (const id of app.recovered) io.stderr(`agents serve: plan ${id} was interrupted by a stopped process; retry it with: agents plan retry ${id}\n`);
  if (app.team) io.stderr(`agents serve: team database ${redactText(app.team.url)}: every plan of the team is shown; runs go to its workers (agents worker)\n`);
  io.stdout(`agents console: ${server.url}\n`);
  if (opts.open) (hooks.openBrowser ?? openBrowser)(server.url);
  hooks.onListening?.(server);

  const signals = hooks.signals ?? process;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    const done = (name: NodeJS.Signals) => {
      signals.off('SIGINT', onInt);
      signals.off('SIGTERM', onTerm);
      resolve(name);
    };
    signals.once('SIGINT', onInt);
    signals.once('SIGTERM', onTerm);
  });

  // A second signal while shutting down means: now.
  const force = () => {
    io.stderr('agents serve: forced exit\n');
    process.exit(130);
  };
  signals.once('SIGINT', force);
  signals.once('SIGTERM', force);
  try {
    io.stderr(`agents serve: ${signal}, shutting down\n`);
    await server.close();
    await confinementChecked;
    const settled = await settleRuns(app.service);
    for (const id of settled.paused) io.stderr(`agents serve: plan ${id} paused between steps; after a restart: agents plan retry ${id}\n`);
    for (const id of settled.stillRunning) io.stderr(`agents serve: plan ${id} was still inside a tool call; after a restart: agents plan retry ${id}\n`);
    await app.close();
  } finally {
    signals.off('SIGINT', force);
    signals.off('SIGTERM', force);
  }
}

const isInside = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * The home folder and the folder `agents serve` was started in (a clone may be outside the home),
 * leaving out any the projects could not be in anyway: `/` and the system's folders.
 */
export function defaultProjectRoots(cwd = process.cwd()): string[] {
  const home = homedir();
  if (cwd === home || isInside(cwd, home)) return [home];
  try {
    checkProjectDir(cwd, 'project');
    return [home, cwd];
  } catch {
    // The working folder is / or a system folder: not a place for projects.
    return [home];
  }
}

/** Best effort: a machine without a desktop has no opener, and that is fine. */
export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is printed already.
  }
}
