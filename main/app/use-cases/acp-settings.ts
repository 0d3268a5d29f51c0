import { type AcpAgentAdd, type AcpAgentsView, describeAcpAgent } from '../../../shared/acp';
import { ValidationError } from '../../../shared/errors';
import { analyseShellCommand } from '../../engine/gates/shell-commands';
import { acpSettingsOf, addAcpAgent, checkAcpAgents, removeAcpAgent } from '../acp-agents';
import { parsePairs } from '../mcp-settings';
import type { PlanContext } from './plan-context';

/** A command line's words, as the shell would split them: one command, a program on PATH or by its absolute path. */
export async function commandWords(line: string): Promise<string[]> {
  const { commands, unanalysable } = await analyseShellCommand(line);
  if (commands.length !== 1 || unanalysable.length > 0 || commands[0].expanded) {
    throw new ValidationError('command', 'must be one command, without pipes, variables or substitutions');
  }
  const words = commands[0].words;
  if (words[0].includes('/') && !words[0].startsWith('/')) throw new ValidationError('command', `"${words[0]}" must be a program on PATH or an absolute path`);
  return words;
}

/** The coding agents of the console's Settings: `agents acp list|add|remove`, through the host. */
export function acpSettings(ctx: PlanContext) {
  const { settings } = ctx.options;

  /** Each agent started once, as `agents acp list` does: whether it starts, its version and modes; environment values stay out. */
  const acpAgentsView = async (): Promise<AcpAgentsView> => {
    const acp = acpSettingsOf(settings);
    const checks = await checkAcpAgents(acp, ctx.env);
    return {
      agents: checks.map((check) => {
        const added = acp.agents[check.name];
        const summary = check.command === null ? null : describeAcpAgent({ command: check.command, args: check.args, env: Object.fromEntries(check.env.map((k) => [k, ''])), allowHosts: added?.allowHosts });
        return { name: check.name, builtin: check.builtin, summary, installed: check.installed, starts: check.ok, version: check.version, modes: check.modes, problem: check.ok ? null : (check.error?.replace(/^agent\.acp: /, '') ?? null) };
      }),
    };
  };

  return {
    acpAgentsView,

    async addAcpAgent(request: AcpAgentAdd): Promise<AcpAgentsView> {
      const [command, ...args] = await commandWords(request.commandLine);
      addAcpAgent(settings, request.name, { command, args, env: parsePairs(request.env ?? [], 'env'), allowHosts: request.allowHosts ?? [] });
      return acpAgentsView();
    },

    async removeAcpAgent(name: string): Promise<AcpAgentsView> {
      removeAcpAgent(settings, name);
      return acpAgentsView();
    },
  };
}

export type AcpSettingsUseCases = ReturnType<typeof acpSettings>;
