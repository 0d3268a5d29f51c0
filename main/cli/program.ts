import { Command } from 'commander';
import { type App, openApp } from '../app/open-app';
import { registerConfig } from './commands/config';
import { registerDemo } from './commands/demo';
import { registerMcp } from './commands/mcp';
import { planApplyCommands } from './commands/plan-apply';
import { planCheckpointCommands } from './commands/plan-checkpoints';
import { planFixCommands } from './commands/plan-fix';
import { planForkCommands } from './commands/plan-fork';
import { planReadCommands } from './commands/plan-read';
import { planRunCommands } from './commands/plan-run';
import { planVerifyCommands } from './commands/plan-verify';
import { registerServe } from './commands/serve';
import { commandGroup, type Register } from './options';
import { type CliIo, type Ctx, EXIT, exitStatusOf } from './run-command';

export { type CliIo, EXIT } from './run-command';

const PLAN_COMMANDS = { ...planRunCommands, ...planReadCommands, ...planFixCommands, ...planVerifyCommands, ...planApplyCommands, ...planCheckpointCommands, ...planForkCommands } satisfies Record<string, Register>;

type PlanCommand = keyof typeof PLAN_COMMANDS;

/** `agents plan --help` lists the commands in this order: a plan's way from creating to applying it. */
const PLAN_HELP_ORDER: readonly PlanCommand[] = [
  'create',
  'list',
  'show',
  'tree',
  'diff',
  'errors',
  'run',
  'retry',
  'correct',
  'approvals',
  'approve',
  'reject',
  'skip',
  'edit-step',
  'profile',
  'replan',
  'reset',
  'checks',
  'verify',
  'checkpoints',
  'rewind',
  'fork',
  'compare',
  'apply',
  'discard',
];

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stdoutDrained: () => new Promise((resolve) => process.stdout.once('drain', resolve)),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  env: process.env,
};

export function buildProgram(ctx: Ctx): Command {
  const program = new Command('agents')
    .description('Run AI-agent plans: strategize, execute in a sandbox, review the changeset, apply.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr })
    .exitOverride();

  const plan = commandGroup(program, ctx, 'plan', 'create, run, inspect, recover and apply plans').addHelpText(
    'after',
    '\nTypical flow:\n  agents plan create examples/add-license.yaml\n  agents plan run <id> --stream\n  agents plan diff <id>\n  agents plan apply <id>',
  );
  // A command left out of the order is still registered, after the others.
  const unlisted = (Object.keys(PLAN_COMMANDS) as PlanCommand[]).filter((name) => !PLAN_HELP_ORDER.includes(name));
  for (const name of [...PLAN_HELP_ORDER, ...unlisted]) PLAN_COMMANDS[name](plan, ctx);

  registerConfig(program, ctx);
  registerDemo(program, ctx);
  registerMcp(program, ctx);
  registerServe(program, ctx);
  return program;
}

/** Runs the CLI; resolves to the exit status. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  let app: App | undefined;
  let opening: Promise<App> | undefined;
  const ctx: Ctx = {
    io,
    exitCode: EXIT.ok,
    app: () =>
      (opening ??= openApp({
        dataDir: io.env.AGENTS_HOME || undefined,
        env: io.env,
        // Lets tests and demos shorten the automatic-retry backoff.
        recovery: io.env.AGENTS_RETRY_BASE_MS ? { baseDelayMs: Number(io.env.AGENTS_RETRY_BASE_MS) } : undefined,
      }).then((opened) => (app = opened))),
  };
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    // Usage errors, and a bad option value (--step 0): an action's own errors are rendered by runCommand.
    return exitStatusOf(error, io);
  } finally {
    app?.close();
  }
}
