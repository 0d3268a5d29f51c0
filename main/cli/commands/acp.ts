import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ValidationError } from '../../../shared/errors';
import { describeAcpAgent, shownAcpAgent } from '../../../shared/acp';
import { acpSettingsOf, addAcpAgent, checkAcpAgents, removeAcpAgent } from '../../app/acp-agents';
import { parsePairs } from '../../app/mcp-settings';
import { commandGroup, jsonOption } from '../options';
import { type Ctx, EXIT, runCommand } from '../run-command';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `agents acp`: the coding agents a plan may run over the Agent Client Protocol, in settings.json. */
export function registerAcp(program: Command, ctx: Ctx): void {
  const acp = commandGroup(program, ctx, 'acp', "coding agents a plan may run over the Agent Client Protocol (settings.json's acp.agents; built in: claude, qwen, opencode, gemini, codex)").addHelpText(
    'after',
    '\nExamples:\n  agents acp add myqwen --env OPENAI_BASE_URL=http://127.0.0.1:8000/v1 --env OPENAI_API_KEY=sk-x -- qwen --acp\n  agents acp list\n  agents acp remove myqwen\nA plan file names one: agent: { acp: myqwen }',
  );
  // This machine's settings: a team database named there is not opened, so it can be changed.
  acp.hook('preAction', () => {
    ctx.open.database = false;
  });

  acp
    .command('add <name> [command...]')
    .description('add an agent: the command after -- speaks ACP over stdio')
    .option('--env <K=V>', 'an environment variable of the agent, a secret never shown (repeatable)', collect, [])
    .option('--allow-host <HOST:PORT>', 'an address its process may reach besides its base URLs (repeatable)', collect, [])
    .action(
      runCommand(ctx, async (name: string, command: string[], options: { env: string[]; allowHost: string[] }) => {
        if (command.length === 0) throw new ValidationError('command', 'give the command after -- (agents acp add NAME -- COMMAND [ARGS...])');
        const [file, ...args] = command;
        // A path is kept absolute, so every process (the CLI, agents serve) starts the same program.
        // So are arguments that name a file here (a script): the agent starts in the plan's sandbox.
        const absolute = args.map((arg) => (!arg.startsWith('-') && !path.isAbsolute(arg) && existsSync(arg) ? path.resolve(arg) : arg));
        const input = { command: file.includes('/') ? path.resolve(file) : file, args: absolute, env: parsePairs(options.env, '--env'), allowHosts: options.allowHost };
        const agent = addAcpAgent((await ctx.app()).settings, name, input);
        return { json: { name, agent: shownAcpAgent(agent) }, text: `Agent ${name} added: ${describeAcpAgent(agent)}` };
      }),
    );

  acp
    .command('remove <name>')
    .description('remove an agent the operator added')
    .action(
      runCommand(ctx, async (name: string) => {
        removeAcpAgent((await ctx.app()).settings, name);
        return { json: { name, removed: true }, text: `Agent ${name} removed` };
      }),
    );

  acp
    .command('list')
    .description("each agent (added, then built in): whether it starts, the name and version its initialize reports, and its modes")
    .action(
      runCommand(ctx, async () => {
        const checks = await checkAcpAgents(acpSettingsOf((await ctx.app()).settings), ctx.io.env);
        const text = () =>
          checks
            .map((check) => {
              const head = `${check.name}${check.builtin ? ' (built in)' : ''}: ${check.command ? describeAcpAgent({ command: check.command, args: check.args, env: Object.fromEntries(check.env.map((k) => [k, ''])) }) : 'not installed'}`;
              const state = !check.installed ? `  ${check.error?.replace(/^agent\.acp: /, '')}` : check.ok ? `  starts: ${check.version ?? 'no version reported'}; modes: ${check.modes.join(', ') || 'none'}` : `  does not start: ${check.error}`;
              return `${head}\n${state}`;
            })
            .join('\n');
        // An agent the operator added that does not start is worth a non-zero status; a built-in not installed is not.
        const failed = checks.some((c) => (!c.builtin || c.installed) && !c.ok);
        return { json: checks, text, exitCode: failed ? EXIT.planFailed : EXIT.ok };
      }),
    );

  for (const command of acp.commands) command.addOption(jsonOption());
}
