import { Command } from 'commander';
import { type App, openApp } from '../app/open-app';
import { settingsOperator, useCliOperatorName } from '../app/operator';
import { commandGroup, type Register } from './options';
import { type CliIo, type Ctx, EXIT, exitStatusOf } from './run-command';

export { type CliIo, EXIT } from './run-command';

/**
 * The commands' modules are loaded when asked for (a chunk each in the build): `agents plan list`
 * reads and registers plan-read alone, not every command and what it imports.
 */
type Commands = () => Promise<Record<string, Register>>;
const planRun: Commands = async () => (await import('./commands/plan-run')).planRunCommands;
const planRead: Commands = async () => (await import('./commands/plan-read')).planReadCommands;
const planFix: Commands = async () => (await import('./commands/plan-fix')).planFixCommands;
const planVerify: Commands = async () => (await import('./commands/plan-verify')).planVerifyCommands;
const planApply: Commands = async () => (await import('./commands/plan-apply')).planApplyCommands;
const planCheckpoints: Commands = async () => (await import('./commands/plan-checkpoints')).planCheckpointCommands;
const planFork: Commands = async () => (await import('./commands/plan-fork')).planForkCommands;
const planTrace: Commands = async () => (await import('./commands/plan-trace')).planTraceCommands;

/** `agents plan --help` lists the commands in this order (a plan's way from creating to applying it): each one's key in its module, and the module. */
export const PLAN_COMMANDS: readonly (readonly [key: string, module: Commands])[] = [
  ['create', planRun],
  ['list', planRead],
  ['show', planRead],
  ['tree', planRead],
  ['diff', planRead],
  ['errors', planRead],
  ['trace', planTrace],
  ['run', planRun],
  ['retry', planRun],
  ['correct', planRun],
  ['approvals', planRead],
  ['approve', planRun],
  ['reject', planRun],
  ['skip', planFix],
  ['edit-step', planFix],
  ['profile', planFix],
  ['replan', planFix],
  ['reset', planFix],
  ['checks', planVerify],
  ['verify', planVerify],
  ['checkpoints', planCheckpoints],
  ['rewind', planCheckpoints],
  ['fork', planFork],
  ['compare', planFork],
  ['apply', planApply],
  ['discard', planApply],
  ['rejectHunks', planApply],
];

/** `agents plan --help`'s example, a shell script as it stands (tests/cli/readme-quickstart.test.ts runs it). */
export const TYPICAL_FLOW = [
  'demo=$(agents demo)',
  'id=$(agents plan create $demo/add-license.yaml)',
  'agents plan run $id --stream',
  'agents plan diff $id',
  'agents plan apply $id',
];

/** The name a plan command is typed as: its key, with `rejectHunks` typed as `reject-hunks`. */
export const typedName = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The commands after `plan`, in the order `agents --help` lists them. */
export const TOP_COMMANDS: Record<string, () => Promise<(program: Command, ctx: Ctx) => void>> = {
  config: async () => (await import('./commands/config')).registerConfig,
  demo: async () => (await import('./commands/demo')).registerDemo,
  mcp: async () => (await import('./commands/mcp')).registerMcp,
  acp: async () => (await import('./commands/acp')).registerAcp,
  serve: async () => (await import('./commands/serve')).registerServe,
  worker: async () => (await import('./commands/team')).registerWorker,
  workers: async () => (await import('./commands/team')).registerWorkers,
  db: async () => (await import('./commands/team')).registerDb,
};

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stdoutDrained: () => new Promise((resolve) => process.stdout.once('drain', resolve)),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  env: process.env,
};

/**
 * The program, with the commands `argv` asks for: `plan list` registers `plan` and its `list` alone.
 * Anything else (no command, an option first, `help`, a name no command has) registers them all, so
 * help, usage errors and "did you mean" read as before.
 */
export async function buildProgram(ctx: Ctx, argv: readonly string[]): Promise<Command> {
  const program = new Command('agents')
    .description('Run AI-agent plans: strategize, execute in a sandbox, review the changeset, apply.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr })
    .option('--database <url>', 'team mode: the team PostgreSQL database (else AGENTS_DATABASE_URL, else the `database` setting)')
    .exitOverride();
  // Read before any command's action opens the app.
  program.hook('preAction', () => {
    ctx.open.database = program.opts<{ database?: string }>().database;
  });

  const [first, second] = argv;
  const all = first !== 'plan' && !Object.hasOwn(TOP_COMMANDS, first ?? '');
  if (all || first === 'plan') {
    const plan = commandGroup(program, ctx, 'plan', 'create, run, inspect, recover and apply plans').addHelpText(
      'after',
      `\nTypical flow (on a copy of the examples, so the repository's own stay as they are):\n${TYPICAL_FLOW.map((line) => `  ${line}`).join('\n')}`,
    );
    const asked = PLAN_COMMANDS.filter(([key]) => typedName(key) === second);
    for (const [key, commands] of asked.length > 0 ? asked : PLAN_COMMANDS) (await commands())[key](plan, ctx);
  }
  for (const [name, register] of Object.entries(TOP_COMMANDS)) if (all || name === first) (await register())(program, ctx);
  return program;
}

/** Runs the CLI; resolves to the exit status. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  let app: App | undefined;
  let opening: Promise<App> | undefined;
  const ctx: Ctx = {
    io,
    exitCode: EXIT.ok,
    open: {},
    app: () =>
      (opening ??= openApp({
        ...ctx.open,
        dataDir: io.env.AGENTS_HOME || undefined,
        env: io.env,
        warn: (line) => io.stderr(`${line}\n`),
        // Lets tests and demos shorten the automatic-retry backoff.
        recovery: io.env.AGENTS_RETRY_BASE_MS ? { baseDelayMs: Number(io.env.AGENTS_RETRY_BASE_MS) } : undefined,
      }).then((opened) => {
        useCliOperatorName(settingsOperator(opened.settings));
        return (app = opened);
      })),
  };
  try {
    await (await buildProgram(ctx, argv)).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    // Usage errors, and a bad option value (--step 0): an action's own errors are rendered by runCommand.
    return exitStatusOf(error, io);
  } finally {
    await app?.close();
  }
}
