import type { Command } from 'commander';
import { ValidationError } from '../../../shared/errors';
import type { App } from '../../app/open-app';
import { startWorker } from '../../app/team/worker';
import type { WorkerInfo } from '../../app/team/run-queue';
import { commandGroup, jsonOption, positiveCount } from '../options';
import { type Ctx, runCommand } from '../run-command';

/** `agents worker`'s exit status when the queue took a running job from it (EX_TEMPFAIL: a supervisor starts it again). */
const EXIT_LOST_JOB = 75;

/** The app in team mode; without a database the command is bad input that says how to name one. */
async function teamApp(ctx: Ctx, command: string): Promise<App & { team: NonNullable<App['team']> }> {
  const app = await ctx.app();
  if (!app.team) throw new ValidationError('--database', `agents ${command} needs a team database: --database postgresql://..., AGENTS_DATABASE_URL, or agents config set database URL`);
  return app as App & { team: NonNullable<App['team']> };
}

/** `agents worker`: runs the team's queued plans until stopped. */
export function registerWorker(program: Command, ctx: Ctx): void {
  program
    .command('worker')
    .description("team mode: take plans off the team's queue and run them here, until Ctrl-C")
    .option('--concurrency <n>', 'plans run at once', positiveCount('--concurrency'), 2)
    .option('--name <name>', 'this worker\'s name in "agents workers" (default: worker@host)')
    .action(
      runCommand(ctx, async (opts: { concurrency: number; name?: string }) => {
        let name = opts.name ?? 'worker';
        const log = (line: string) => ctx.io.stderr(`${new Date().toISOString()} ${name}: ${line}\n`);
        // A lost connection is said once, not at every poll while the database is away; pg-boss and the pools reconnect.
        let lastError = { message: '', at: 0 };
        const onTeamError = (error: Error) => {
          if (error.message === lastError.message && Date.now() - lastError.at < 30_000) return;
          lastError = { message: error.message, at: Date.now() };
          log(`database: ${error.message}`);
        };
        Object.assign(ctx.open, { role: 'worker', migrate: true, name: opts.name, onTeamError });
        const app = await teamApp(ctx, 'worker');
        name = opts.name ?? `worker@${app.team.host}`;
        // Its run cannot be stopped between two writes: end here, as a killed worker does, and let the taker run it alone.
        const onLost = () => process.exit(EXIT_LOST_JOB);
        const worker = await startWorker(app, { concurrency: opts.concurrency, name, log, onLost });
        log(`taking runs (concurrency ${opts.concurrency}); Ctrl-C stops after the running plans pause or end`);
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve();
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        log('stopping: no new runs; waiting for the running ones');
        await worker.stop(30_000);
        log('stopped');
      }),
    );
}

/** `agents workers`: the team's workers, their machines, their plans and last heartbeat. */
export function registerWorkers(program: Command, ctx: Ctx): void {
  program
    .command('workers')
    .description("team mode: the team's workers, the plans they run, and the queue's depth")
    .addOption(jsonOption())
    .action(
      runCommand(ctx, async () => {
        const app = await teamApp(ctx, 'workers');
        const queue = await app.team.queue();
        const [workers, depth] = await Promise.all([queue.listWorkers(), queue.depth()]);
        return { json: { workers, queue: depth }, text: () => formatWorkers(workers, depth) };
      }),
    );
}

export function formatWorkers(workers: readonly WorkerInfo[], depth: { queued: number; active: number }): string {
  const now = Date.now();
  const lines = workers.map((w) => {
    const ago = Math.max(0, Math.round((now - w.lastHeartbeat.getTime()) / 1000));
    const plans = w.plans.length > 0 ? w.plans.join(', ') : 'idle';
    return `${w.name}  ${w.host} pid ${w.pid}  ${w.live ? 'live' : 'silent'}  heartbeat ${ago}s ago  ${w.plans.length}/${w.concurrency}: ${plans}`;
  });
  return [...(lines.length > 0 ? lines : ['no workers']), `queue: ${depth.queued} queued, ${depth.active} running`].join('\n');
}

/** `agents db migrate`: brings the team database's schema (and the queue's) up to date. */
export function registerDb(program: Command, ctx: Ctx): void {
  const db = commandGroup(program, ctx, 'db', 'team mode: the team database');
  db.command('migrate')
    .description("create or upgrade the team database's schema (workers and serve do it themselves)")
    .action(
      runCommand(ctx, async () => {
        Object.assign(ctx.open, { migrate: true });
        const app = await teamApp(ctx, 'db migrate');
        // The queue's own schema is pg-boss's; opening it migrates that too.
        await app.team.queue();
        const version = await app.team.stores.db.one<{ version: number }>('SELECT version FROM agents_schema');
        return { text: `team database at schema version ${version?.version ?? '?'}` };
      }),
    );
}
