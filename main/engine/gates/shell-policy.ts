import { type AutomationProfile, needsApproval } from '../../../shared/profiles';
import type { CommandRule, ToolCallSpec } from '../../../shared/tool-calls';
import { EngineError } from '../errors';
import type { InvariantRules } from './invariants';
import { analyseShellCommand } from './shell-commands';

/**
 * Whether shell.run commands are held to rules at all: the project has denyCommands or
 * allowCommands, or the profile has the operator approve shell commands. Cheap: parses nothing.
 */
export function shellRulesApply(profile: AutomationProfile, rules: InvariantRules | undefined): boolean {
  return rules?.hasCommandRules === true || needsApproval(profile, 'shell.run') || profile.name === 'restricted';
}

/** Whether `call` is a shell command the rules hold (a shell.run call, where they apply). Cheap: parses nothing. */
export function heldToShellRules(call: ToolCallSpec, profile: AutomationProfile, rules: InvariantRules | undefined): boolean {
  return call.tool === 'shell.run' && shellRulesApply(profile, rules);
}

/**
 * The part of a shell.run call no rule can be checked against (a script the parser cannot read,
 * a command built at run time), where rules apply; null otherwise, and for other tools.
 */
export async function unanalysedPart(call: ToolCallSpec, profile: AutomationProfile, rules: InvariantRules | undefined): Promise<CommandRule | null> {
  if (call.tool !== 'shell.run' || typeof call.args.command !== 'string' || !shellRulesApply(profile, rules)) return null;
  const analysis = await analyseShellCommand(call.args.command);
  const [first] = analysis.unanalysable;
  if (first) return { command: first.command, rule: `unanalysable: ${first.reason}` };
  // `rm -rf${u} docs` is held to the rules as written, yet runs as `rm -rf docs`: where a rule
  // names the command, a word only known at run time leaves the rules unable to tell.
  const hidden = analysis.commands.find((c) => c.expanded !== undefined && rules?.namesCommand(c.words[0]));
  return hidden ? { command: hidden.text, rule: `unanalysable: its word ${hidden.expanded} is only known at run time, and a command rule names ${hidden.words[0]}` } : null;
}

/**
 * Under `restricted`, a command the rules cannot be checked against is refused rather than put to
 * the operator (elsewhere the approval gate asks for it). Where restricted refuses the shell
 * altogether, shell.run says so itself.
 */
export async function checkShellPolicy(call: ToolCallSpec, profile: AutomationProfile, rules: InvariantRules | undefined): Promise<void> {
  if (profile.name !== 'restricted' || !profile.allowShell) return;
  const unanalysed = await unanalysedPart(call, profile, rules);
  if (unanalysed) {
    throw new EngineError(`shell.run: "${unanalysed.command}" cannot be checked against the rules (${unanalysed.rule}); the restricted profile refuses it`, 'policy', { ...unanalysed });
  }
}
