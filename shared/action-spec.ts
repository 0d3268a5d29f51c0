// What an operator action is declared as (the entries of ACTIONS, shared/actions.ts): a leaf, so
// a module that reads entries need not import the table's rules.
import type { z } from 'zod';
import type { PlanFacts, Verdict } from './action-rules';

export interface KeyBinding {
  /** As KeyboardEvent.key gives it: `a`, `A` (with Shift). */
  key: string;
  /** Arguments the key gives the action. */
  args?: Record<string, unknown>;
  /** What the key does, for the console's help sheet. */
  help: string;
}

export interface ActionSpec<Args extends z.ZodType = z.ZodType> {
  id: string;
  /** The control's text where space is short (the plan's toolbar). */
  label: string;
  /** The control's text where it stands alone (the failure card). */
  title: string;
  /** What the action does, for a control's accessible description and tooltip. */
  description: string;
  keys: readonly KeyBinding[];
  args: Args;
  allowed(plan: PlanFacts): Verdict;
  /** The argument (true) that confirms an action whose rule asks for confirmation. */
  confirmedBy?: string;
  /**
   * The host's channel that performs it (shared/contract.ts), whose request is `planId` and these
   * `args`; none where only the command line has the action (it takes a file of the operator's).
   */
  channel?: string;
  /** The command line's words, `agents plan <command> <id> ...options(args)`; none where only the console has the action. */
  cli?: { command: string; options?: (args: Record<string, unknown>) => string };
}

/** `C`: the channel's name as a literal, so the contract and the host's table know each action's channel by type. */
export function action<Args extends z.ZodType, const C extends string = never>(
  spec: Omit<ActionSpec<Args>, 'keys' | 'args' | 'channel'> & Partial<Pick<ActionSpec<Args>, 'keys'>> & { args: () => Args; channel?: C },
): Omit<ActionSpec<Args>, 'channel'> & { channel?: NoInfer<C> } {
  let args: Args | undefined;
  return {
    keys: [],
    ...spec,
    get args() {
      return (args ??= spec.args());
    },
  };
}
