import type { Command } from 'commander';
import { copyDemo } from '../demo-command';
import { type Ctx, runCommand } from '../run-command';

export function registerDemo(program: Command, ctx: Ctx): void {
  program
    .command('demo [dir]')
    .description('copy the example plans and their demo project into DIR (default: a new temporary folder) and print its path')
    .action(runCommand(ctx, async (dir: string | undefined) => ({ text: copyDemo(dir) })));
}
