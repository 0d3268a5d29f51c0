/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp folder, `postgres` on a unix socket
 * in that folder (no TCP port to collide on), fsync off. PostgreSQL refuses to run as root, so as
 * root its programs run as `nobody`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** Connects as the superuser `postgres` to the database `postgres`. */
  url: string;
  stop(): Promise<void>;
  /** Stops the server as `pg_ctl restart -m fast` does (every connection ended) and starts it again on the same data. */
  restart(): Promise<void>;
}

/**
 * Where initdb and postgres are: AGENTS_POSTGRES_BINDIR when set (and only there), else pg_config's
 * bindir, else the newest /usr/lib/postgresql/N/bin, else PATH.
 */
export function findPostgresBinDir(): string | undefined {
  const hasInitdb = (dir: string) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'postgres'));
  const chosen = process.env.AGENTS_POSTGRES_BINDIR;
  if (chosen !== undefined) return hasInitdb(chosen) ? chosen : undefined;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (hasInitdb(dir)) return dir;
  } catch {
    // No pg_config (it comes with libpq-dev or postgresql-common): look in the usual places.
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const major of majors) if (hasInitdb(path.join(debian, major, 'bin'))) return path.join(debian, major, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir && hasInitdb(dir)) return dir;
  return undefined;
}

/** The uid and gid to run PostgreSQL as: ours, unless we are root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${stderr.trim()}`))));
  });
}

/** Resolves once the server says it accepts connections; rejects when it exits first or takes over `timeoutMs`. */
function waitUntilReady(server: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => done(new Error(`postgres did not start within ${timeoutMs} ms: ${log.trim()}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('ready to accept connections')) done();
    };
    const onExit = (code: number | null) => done(new Error(`postgres exited ${code} while starting: ${log.trim()}`));
    const done = (error?: Error) => {
      clearTimeout(timer);
      server.stderr?.off('data', onData);
      server.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    server.stderr?.on('data', onData);
    server.on('exit', onExit);
  });
}

/** Starts a fresh cluster; throws with the reason when PostgreSQL is missing or will not start. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (no initdb found via AGENTS_POSTGRES_BINDIR, pg_config, /usr/lib/postgresql/*/bin or PATH)');
  const user = runAs();
  const root = mkdtempSync(path.join(tmpdir(), 'agents-pg-'));
  // The socket folder must be reachable by the test process; the data folder is made 0700 by initdb.
  chmodSync(root, 0o755);
  if (user) chownSync(root, user.uid, user.gid);
  const data = path.join(root, 'data');
  try {
    await run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], user);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const startServer = () =>
    spawn(
      path.join(bin, 'postgres'),
      ['-D', data, '-k', root, '-p', '5432', '-c', "listen_addresses=", '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
      { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
  let server = startServer();
  let exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  // Should the test process end without stop() (an error, Ctrl-C), the server must not outlive it.
  const onExit = () => {
    server.kill('SIGQUIT'); // immediate shutdown
    // Nothing async runs in an exit handler: wait (at most 5 s) for the server to remove its pid file as it exits.
    const pidFile = path.join(data, 'postmaster.pid');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; existsSync(pidFile) && waited < 5000; waited += 20) Atomics.wait(pause, 0, 0, 20);
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {
      // A folder left in the temp dir is no reason to fail an exit.
    }
  };
  process.once('exit', onExit);
  const shutDown = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT'); // fast shutdown: disconnects clients, no checkpoint wait beyond what is needed
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const stop = async () => {
    process.off('exit', onExit);
    await shutDown();
    rmSync(root, { recursive: true, force: true });
  };
  const restart = async () => {
    await shutDown();
    server = startServer();
    exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    await waitUntilReady(server, 30_000);
    server.stderr?.resume();
  };
  try {
    await waitUntilReady(server, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  // Keep reading the log so a full pipe never blocks the server.
  server.stderr?.resume();
  return { url: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(root)}`, stop, restart };
}
