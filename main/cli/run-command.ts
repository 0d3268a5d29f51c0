import { withMcpHidden } from '../../shared/mcp';
import { type Command, CommanderError } from 'commander';
import { PlanError, ValidationError } from '../../shared/errors';
import { clientError } from '../app/client-errors';
import type { App, OpenAppOptions } from '../app/open-app';
import { EXIT_INTERRUPTED } from './interrupt';
import { commandLine } from '../../shared/actions';

/** Exit statuses of docs/ARCHITECTURE.md "Stable interfaces"; 3 leaves the plan resumable, waiting for the operator's approval. */
export const EXIT = { ok: 0, planFailed: 1, badInput: 2, waitingForApproval: 3, interrupted: EXIT_INTERRUPTED } as const;

export interface CliIo {
  /** False when the reader is behind: a long output then waits for `stdoutDrained`. */
  stdout: (text: string) => boolean | void;
  stdoutDrained?: () => Promise<void>;
  stderr: (text: string) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** What every command is given: where to print, the app (opened at its first use), and the exit status so far. */
export interface Ctx {
  io: CliIo;
  /** The app, opened at the first call with `open` as it is then. */
  app(): Promise<App>;
  /** How the app is opened: `--database`, and what a command asks for (a worker's role) before its first `app()`. */
  open: Pick<OpenAppOptions, 'database' | 'role' | 'migrate' | 'name' | 'onTeamError' | 'onFeedStatus'>;
  exitCode: number;
}

export function printJson(ctx: Ctx, value: unknown): void {
  ctx.io.stdout(`${JSON.stringify(withMcpHidden(value), null, 2)}\n`);
}

/**
 * What a command prints. With --json: `json`, as one document. Otherwise `text` (a line on stdout,
 * made only when it is printed), or, for output that goes to both streams, `print` writes it itself.
 */
export interface Output {
  json?: unknown;
  text?: string | (() => string);
  print?: () => void;
  exitCode?: number;
}

/** The engine refused `agents plan run` because the plan waits for an answer: exit 3, as a run that stops for one does. */
export class WaitingForApproval extends Error {
  constructor(
    readonly planId: string,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * A command's action: runs `action` with commander's arguments and prints what it returns; an
 * error it throws becomes its line on stderr and the exit status, as `exitStatusOf` says.
 */
export function runCommand<Args extends unknown[]>(ctx: Ctx, action: (...args: Args) => Output | void | Promise<Output | void>) {
  return async (...args: [...Args, Command]): Promise<void> => {
    const command = args.at(-1) as Command;
    let output: Output | void;
    try {
      output = await action(...(args as unknown as Args));
    } catch (error) {
      ctx.exitCode = exitStatusOf(error, ctx.io);
      return;
    }
    if (!output) return;
    if (output.exitCode !== undefined) ctx.exitCode = output.exitCode;
    if (command.opts().json && output.json !== undefined) printJson(ctx, output.json);
    else if (output.print) output.print();
    else if (output.text !== undefined) ctx.io.stdout(`${typeof output.text === 'function' ? output.text() : output.text}\n`);
  };
}

/** Prints what went wrong (nothing for help and usage errors: commander has) and returns the exit status it means. */
export function exitStatusOf(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
    return EXIT.badInput;
  }
  if (error instanceof WaitingForApproval) {
    const answer = (['approve', 'reject'] as const).map((action) => commandLine(error.planId, { action, args: {} })).join(' | ');
    io.stderr(`error: ${error.message}\nanswer with: ${answer}\n`);
    return EXIT.waitingForApproval;
  }
  const known = clientError(error);
  // A rule's refusal is not bad input: what stands in the way is in the project (README, exit status); nor is a rewind that failed part way.
  if (known instanceof PlanError && (known.code === 'policy' || known.code === 'rewind_failed')) {
    io.stderr(`error: ${known.message}\n`);
    return EXIT.planFailed;
  }
  if (known instanceof ValidationError || known instanceof PlanError) {
    // A plan file's check may find several problems: one line each.
    io.stderr(known.message.split('\n').map((line) => `error: ${line}\n`).join(''));
    return EXIT.badInput;
  }
  io.stderr(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.planFailed;
}
