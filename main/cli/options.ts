import { type Command, Option } from 'commander';
import { z } from 'zod';
import { ACTIONS, type ActionArgs } from '../../shared/actions';
import type { ActionId } from '../../shared/action-ids';
import { ValidationError } from '../../shared/errors';
import type { Ctx } from './run-command';

/** A JSON object given on the command line (`--args`, `--input`); anything else is bad input naming the option. */
export function jsonObject(text: string, option: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(option, `is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(option, 'must be a JSON object, such as {"path": "."}');
  return value as Record<string, unknown>;
}

/** The options several commands share, declared once. */
export const jsonOption = () => new Option('--json', 'print one JSON document on stdout');
export const streamOption = () => new Option('--stream', 'print one line per event as it happens (NDJSON with --json)');

/** --step N, --to-step N: a step as `plan tree` numbers them, from 1. */
const stepNumber = (flag: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ValidationError(flag, `must be a step number (1, 2, ...), not "${value}"`);
  return n;
};

const unwrapped = (schema: z.ZodType): z.ZodType => (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault ? unwrapped(schema.unwrap() as z.ZodType) : schema);

/**
 * The option of one of an action's arguments, as its entry declares it (shared/actions.ts): the
 * flag from the argument's name (`toStep`: `--to-step`), required where the entry requires the
 * argument, a switch for a boolean, a step number read as one and a record read as a JSON object.
 * The words are the command's.
 */
export function actionOption<A extends ActionId>(action: A, arg: keyof ActionArgs<A> & string, help: string, value = '<text>'): Option {
  const schema = (ACTIONS[action].args as unknown as z.ZodObject).shape[arg] as z.ZodType;
  const flag = `--${arg.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const base = unwrapped(schema);
  const placeholder = base instanceof z.ZodNumber ? '<n>' : base instanceof z.ZodRecord ? '<json>' : value;
  const option = new Option(base instanceof z.ZodBoolean ? flag : `${flag} ${placeholder}`, help);
  if (base instanceof z.ZodNumber) option.argParser(stepNumber(flag));
  if (base instanceof z.ZodRecord) option.argParser((text: string) => jsonObject(text, flag));
  if (!schema.safeParse(undefined).success) option.makeOptionMandatory();
  return option;
}

/** --turns N, --tokens N: a positive count. */
export const positiveCount = (flag: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ValidationError(flag, `must be a whole number above 0, not "${value}"`);
  return n;
};

/** --cost USD: an amount of US dollars above 0, written as a plain number (1.50). */
export const dollars = (flag: string) => (value: string): number => {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1_000_000) throw new ValidationError(flag, `must be an amount of US dollars above 0, such as 1.50, not "${value}"`);
  return n;
};

/** Adds commands to a group; a group's commands are registered by name, in the order its help lists them. */
export type Register = (group: Command, ctx: Ctx) => void;

/** A group of subcommands (`agents plan`, `agents config`) that prints and fails as the program does. */
export function commandGroup(program: Command, ctx: Ctx, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .exitOverride()
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr })
    .showHelpAfterError('(run with --help for usage)');
}
