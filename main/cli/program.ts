import { createInterface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import type { Plan } from '../../shared/domain';
import { PlanError, ValidationError } from '../../shared/errors';
import type { StreamEvent } from '../../shared/events';
import { type App, openApp } from '../app/open-app';
import { formatDiff, formatErrors, formatEvent, formatPlan, formatPlanList, formatTree } from './format';

/** Exit statuses of docs/ARCHITECTURE.md "Stable interfaces". */
export const EXIT = { ok: 0, planFailed: 1, badInput: 2 } as const;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  env: process.env,
};

interface Ctx {
  io: CliIo;
  app(): App;
  exitCode: number;
}

function printJson(ctx: Ctx, value: unknown): void {
  ctx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Shows one line per event (--stream) and, on a terminal, a live "step k of n" line. */
function streamPrinter(ctx: Ctx, options: { stream?: boolean; json?: boolean }) {
  let progress = '';
  const clear = () => {
    if (progress) ctx.io.stderr('\r\x1b[2K');
  };
  const showProgress = (event: StreamEvent) => {
    if (!ctx.io.isTTY) return;
    const d = event.data;
    if (event.type === 'runtime_execute_step') progress = `step ${d.index} of ${d.total}: ${String(d.description)}`;
    else if (event.type === 'tool_call_started') progress = `${progress.split(' · ')[0]} · ${String(d.tool)}`;
    else if (event.type === 'retry_scheduled') progress = `${progress.split(' · ')[0]} · retry ${d.attempt} in ${d.delayMs} ms`;
    else if (event.type === 'strategize_started') progress = 'strategizing…';
    else return;
    ctx.io.stderr(`\r\x1b[2K${progress.slice(0, 120)}`);
  };
  return {
    onEvent(event: StreamEvent) {
      if (options.stream) {
        clear();
        ctx.io.stdout(options.json ? `${JSON.stringify(event)}\n` : `${formatEvent(event)}\n`);
      }
      showProgress(event);
    },
    done() {
      clear();
      progress = '';
    },
  };
}

/** In step mode on a terminal: Enter steps one decision, c continues, q leaves it paused... */
function attachStepKeys(ctx: Ctx, app: App, planId: string): () => void {
  const rl = createInterface({ input: process.stdin });
  ctx.io.stderr('step mode: Enter = step, c = continue to the end, p = pause\n');
  rl.on('line', (line) => {
    const controller = app.service.isRunning(planId) ? app.service.controller(planId) : null;
    const key = line.trim().toLowerCase();
    if (!controller) return;
    if (key === 'c') controller.continue();
    else if (key === 'p') controller.pause();
    else controller.step();
  });
  rl.on('close', () => {
    if (app.service.isRunning(planId)) app.service.controller(planId).continue();
  });
  return () => rl.close();
}

async function runAndReport(ctx: Ctx, planId: string, opts: { stream?: boolean; json?: boolean; step?: boolean }, start: (onEvent: (e: StreamEvent) => void) => Promise<Plan>) {
  const printer = streamPrinter(ctx, opts);
  const app = ctx.app();
  const detach = opts.step ? attachStepKeys(ctx, app, planId) : () => undefined;
  let plan: Plan;
  try {
    plan = await start(printer.onEvent);
  } finally {
    printer.done();
    detach();
  }
  if (opts.json && !opts.stream) printJson(ctx, plan);
  else if (!opts.json) ctx.io.stderr(`${plan.name}: ${plan.phase} ${plan.processingState}${plan.errorMessage && plan.processingState === 'errored' ? ` — ${plan.errorMessage}` : ''}\n`);
  if (plan.processingState === 'errored') {
    ctx.exitCode = EXIT.planFailed;
    if (!opts.json && typeof plan.errorDetails.recoveryCommand === 'string') {
      ctx.io.stderr(`hint: ${String(plan.errorDetails.hint)}\nnext: ${plan.errorDetails.recoveryCommand}\n`);
    }
  } else if (!opts.json && plan.phase === 'apply' && plan.processingState === 'queued') {
    ctx.io.stderr(`review with: agents plan diff ${plan.id}\napply with:  agents plan apply ${plan.id}\n`);
  }
}

export function buildProgram(ctx: Ctx): Command {
  const program = new Command('agents')
    .description('Run AI-agent plans: strategize, execute in a sandbox, review the changeset, apply.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr })
    .exitOverride();

  const plan = program
    .command('plan')
    .description('create, run, inspect, recover and apply plans')
    .addHelpText('after', '\nTypical flow:\n  agents plan create examples/add-license.yaml\n  agents plan run <id> --stream\n  agents plan diff <id>\n  agents plan apply <id>');
  plan.exitOverride().configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr }).showHelpAfterError('(run with --help for usage)');
  const json = () => new Option('--json', 'print one JSON document on stdout');

  plan
    .command('create <plan-file>')
    .description('validate a plan file (YAML or JSON) and store it; prints the new plan id')
    .option('--project <dir>', 'project directory (overrides the plan file)')
    .option('--profile <name>', 'automation profile: manual, restricted, supervised, trusted, full-auto')
    .addOption(json())
    .action((file: string, opts: { project?: string; profile?: string; json?: boolean }) => {
      const created = ctx.app().service.createFromFile(file, opts);
      if (opts.json) printJson(ctx, created);
      else ctx.io.stdout(`${created.id}\n`);
    });

  plan
    .command('list')
    .description('list plans, newest first')
    .addOption(new Option('--state <state>', 'only plans in this processing state'))
    .addOption(json())
    .action((opts: { state?: string; json?: boolean }) => {
      const plans = ctx.app().service.list().filter((p) => !opts.state || p.processingState === opts.state);
      if (opts.json) printJson(ctx, { plans });
      else ctx.io.stdout(`${formatPlanList(plans)}\n`);
    });

  plan
    .command('show <id>')
    .description("show a plan's phase, state, sandbox, changeset and last error")
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const p = ctx.app().service.get(id);
      if (opts.json) printJson(ctx, p);
      else ctx.io.stdout(`${formatPlan(p)}\n`);
    });

  plan
    .command('tree <id>')
    .description('show the decision tree, with each decision\'s status and recovery decisions')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const root = ctx.app().service.tree(id);
      if (opts.json) printJson(ctx, { planId: id, root });
      else ctx.io.stdout(`${formatTree(root)}\n`);
    });

  plan
    .command('diff <id>')
    .description('show every change entry with its unified diff')
    .option('--patch', 'print the whole changeset as one patch for git apply')
    .addOption(json())
    .action((id: string, opts: { json?: boolean; patch?: boolean }) => {
      const service = ctx.app().service;
      if (opts.patch) ctx.io.stdout(service.patch(id));
      else if (opts.json) printJson(ctx, service.diff(id));
      else ctx.io.stdout(`${formatDiff(service.diff(id).entries)}\n`);
    });

  plan
    .command('errors <id>')
    .description('show the error history and what to do next')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const result = ctx.app().service.errors(id);
      if (opts.json) printJson(ctx, result);
      else ctx.io.stdout(`${formatErrors(result.errors, result.recoveryHints)}\n`);
    });

  plan
    .command('run <id>')
    .description('strategize and execute a queued plan; stops before apply')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .option('--step', 'pause before each decision: Enter steps, c continues')
    .addOption(json())
    .action(async (id: string, opts: { stream?: boolean; json?: boolean; step?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.run(id, { streamCallback: onEvent, step: opts.step }));
    });

  plan
    .command('retry <id>')
    .description('re-run the failed phase of an errored plan from the failed step')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .addOption(json())
    .action(async (id: string, opts: { stream?: boolean; json?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.retry(id, { streamCallback: onEvent }));
    });

  plan
    .command('reset <id>')
    .description('errored -> queued, for manual recovery')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const p = ctx.app().service.reset(id);
      if (opts.json) printJson(ctx, p);
      else ctx.io.stdout(`${p.id} is queued in phase ${p.phase}\n`);
    });

  plan
    .command('apply <id>')
    .description('write the changeset into the project; conflicts stop it unless --force')
    .option('--path <path...>', 'apply only these paths')
    .option('--force', 'apply the non-conflicting files even if some conflict')
    .addOption(json())
    .action(async (id: string, opts: { json?: boolean; path?: string[]; force?: boolean }) => {
      const result = await ctx.app().service.apply(id, { paths: opts.path, force: opts.force });
      if (result.conflicts.length > 0) ctx.exitCode = EXIT.planFailed;
      if (opts.json) return printJson(ctx, result);
      for (const c of result.conflicts) ctx.io.stderr(`conflict: ${c.path}: ${c.reason ?? 'changed in the project since the plan ran'}\n`);
      if (result.conflicts.length > 0 && !opts.force) ctx.io.stderr('nothing was written; resolve the conflicts or use --force to apply the rest\n');
      else ctx.io.stdout(`applied ${result.applied.length} file(s)${result.skipped.length ? `, skipped ${result.skipped.length}` : ''}\n`);
    });

  plan
    .command('discard <id>')
    .description('remove the sandbox and cancel the plan')
    .addOption(json())
    .action(async (id: string, opts: { json?: boolean }) => {
      const p = await ctx.app().service.discard(id);
      if (opts.json) printJson(ctx, p);
      else ctx.io.stdout(`${p.id} discarded\n`);
    });

  program
    .command('serve')
    .description('serve the operator console to a browser')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '4477')
    .option('--open', 'open a browser')
    .action(async (opts: { host: string; port: string; open?: boolean }) => {
      // Loaded on demand: the web host (ws, http, static files) is most of what a start would read.
      const { serveCommand } = await import('./serve-command');
      await serveCommand(ctx.app(), opts, ctx.io);
    });

  return program;
}

/** Runs the CLI; resolves to the exit status. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  let app: App | undefined;
  const ctx: Ctx = {
    io,
    exitCode: EXIT.ok,
    app: () =>
      (app ??= openApp({
        dataDir: io.env.AGENTS_HOME || undefined,
        // Lets tests and demos shorten the automatic-retry backoff.
        recovery: io.env.AGENTS_RETRY_BASE_MS ? { baseDelayMs: Number(io.env.AGENTS_RETRY_BASE_MS) } : undefined,
      })),
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.badInput;
    }
    if (error instanceof ValidationError || error instanceof PlanError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT.badInput;
    }
    io.stderr(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.planFailed;
  } finally {
    app?.close();
  }
}
