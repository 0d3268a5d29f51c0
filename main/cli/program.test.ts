import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { inProcessCli } from './test-support';
import { PLAN_COMMANDS, typedName } from './program';
import type { Register } from './options';
import type { Ctx } from './run-command';

describe('the commands argv asks for', () => {
  it('lists every plan command once, with the module that registers it and the name it is typed as', async () => {
    const modules = new Map<unknown, Record<string, Register>>();
    for (const [, load] of PLAN_COMMANDS) if (!modules.has(load)) modules.set(load, await load());
    const defined = [...modules.values()].flatMap((commands) => Object.keys(commands));
    expect(PLAN_COMMANDS.map(([key]) => key).sort()).toEqual(defined.sort());
    const group = new Command('plan');
    for (const [key, load] of PLAN_COMMANDS) modules.get(load)![key](group, {} as Ctx);
    expect(group.commands.map((command) => command.name())).toEqual(PLAN_COMMANDS.map(([key]) => typedName(key)));
  });

  it('prints the same for a command registered alone as among all of them', async () => {
    const { agents } = inProcessCli();
    // `plan list --help` registers `list` alone; `plan help list` registers every command.
    const alone = await agents('plan', 'list', '--help');
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('Usage: agents plan list');
    expect(alone).toEqual(await agents('plan', 'help', 'list'));
    expect((await agents('plan', 'reject-hunks', '--help')).stdout).toContain('Usage: agents plan reject-hunks');
    // A misspelt command still gets its suggestion, which needs every name.
    const typo = await agents('plan', 'lst');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean list?)');
  });
});
