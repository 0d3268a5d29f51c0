import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Plan } from '../../shared/domain';
import { agents, type CliResult, startAgents } from '../cli/cli-harness';
import { type Agents, serveTeam } from './team-processes';

/** An `agents worker` process with its own data directory. */
export interface TeamWorker {
  name: string;
  home: string;
  child: ChildProcess;
  /** What it has logged so far (its stderr). */
  log(): string;
  /** The plans it has started a run of, from its log. */
  ran(): Set<string>;
  /** Its exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** A plan as `plan list --json` and `plan show --json` print it (the fields the tests read). */
export type ShownPlan = Pick<Plan, 'id' | 'name' | 'phase' | 'processingState' | 'waitingFor' | 'errorMessage'>;

/** A data directory's settings, as `agents config set` would leave them. */
export function writeSettings(home: string, settings: object): void {
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings), { mode: 0o600 });
}

const readyToApply = (plan: ShownPlan) => plan.phase === 'apply' && plan.processingState === 'queued';

/**
 * A team on one database: worker processes, each with its own data directory, and a client's
 * data directory for the CLI commands a test runs (`--database URL` on each). `dispose` kills
 * what is left and removes the folders.
 */
export class Team {
  readonly base = mkdtempSync(join(tmpdir(), 'agents-team-'));
  readonly clientHome = join(this.base, 'client');
  readonly workers: TeamWorker[] = [];
  /** Other processes to stop at the end (a console). */
  private readonly children: ChildProcess[] = [];

  constructor(
    readonly url: string,
    /** The environment of every process (the scripted model's, say). */
    private readonly env: Record<string, string> = {},
  ) {
    mkdirSync(this.clientHome);
  }

  /** Starts `agents worker --name NAME --concurrency N` and resolves once it takes runs; `settings`: its data directory's settings.json. */
  async worker(name: string, options: { concurrency?: number; env?: Record<string, string>; settings?: object } = {}): Promise<TeamWorker> {
    const home = join(this.base, name);
    mkdirSync(home);
    if (options.settings) writeSettings(home, options.settings);
    const child = startAgents(['worker', '--name', name, '--concurrency', String(options.concurrency ?? 1)], home, {
      ...this.env,
      AGENTS_DATABASE_URL: this.url,
      ...options.env,
    });
    let log = '';
    child.stdout?.resume();
    const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker ${name} did not start within 60 s: ${log}`)), 60_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('taking runs')) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`worker ${name} exited (${code}) before taking runs: ${log}`));
      });
    });
    const worker: TeamWorker = {
      name,
      home,
      child,
      log: () => log,
      ran: () => new Set([...log.matchAll(/: plan (\w+): (?!not run)/g)].map((m) => m[1]!)),
      exited,
    };
    this.workers.push(worker);
    await ready;
    return worker;
  }

  /** Starts `agents serve --port 0` on the team database with its own data directory `name` (and `settings`), stopped by `dispose`. */
  async serve(options: { settings?: object; name?: string } = {}): Promise<Agents & { console: URL }> {
    const home = join(this.base, options.name ?? 'serve');
    mkdirSync(home);
    if (options.settings) writeSettings(home, options.settings);
    const served = await serveTeam(this.url, home, this.base, this.env);
    this.children.push(served.child);
    return served;
  }

  /** `agents --database URL ARGS` from the client's data directory. */
  agents(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return agents(['--database', this.url, ...args], this.clientHome, { ...this.env, ...env });
  }

  async json<T>(args: string[]): Promise<T> {
    const result = await this.agents([...args, '--json']);
    if (result.code !== 0) throw new Error(`agents ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  /** Creates a plan from a file; its id. */
  async create(file: string, extra: string[] = []): Promise<string> {
    const created = await this.agents(['plan', 'create', file, ...extra]);
    if (created.code !== 0) throw new Error(`plan create ${file} exited ${created.code}: ${created.stderr}`);
    return created.stdout.trim();
  }

  /** Polls `plan list --json` until every plan of `ids` is ready to apply; fails early on one that failed. */
  async allReadyToApply(ids: readonly string[], timeoutMs: number): Promise<ShownPlan[]> {
    return this.until(`${ids.length} plans ready to apply`, timeoutMs, async () => {
      const { plans } = await this.json<{ plans: ShownPlan[] }>(['plan', 'list']);
      const mine = plans.filter((p) => ids.includes(p.id));
      // A plan taken over is marked interrupted (errored) for a moment, while its job is still the queue's.
      for (const failed of mine.filter((p) => p.processingState === 'errored')) {
        const pending = await this.query("SELECT 1 FROM pgboss.job WHERE singleton_key = $1 AND state IN ('created', 'retry', 'active')", [failed.id]);
        if (pending.length === 0) throw new Error(`plan ${failed.id} (${failed.name}) failed: ${failed.errorMessage}`);
      }
      return mine.length === ids.length && mine.every(readyToApply) ? mine : undefined;
    });
  }

  /** Calls `probe` every `everyMs` until it gives something, or fails after `timeoutMs` saying what it waited for. */
  async until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 1000): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > until) throw new Error(`no ${what} within ${timeoutMs} ms; workers' logs:\n${this.workers.map((w) => w.log()).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  /** A query on the team database, as the tests count what the stores recorded. */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Stops every worker still running (SIGTERM, then SIGKILL after 10 s) and removes the folders. */
  async dispose(): Promise<void> {
    await Promise.all(
      [...this.workers.map((w) => w.child), ...this.children].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    rmSync(this.base, { recursive: true, force: true });
  }
}

export { readyToApply };
