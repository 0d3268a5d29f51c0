import { ACTIONS, type ActionArgs, type ActionSpec } from '../../../shared/actions';
import type { ActionId } from '../../../shared/action-ids';
import type { Bridge, Channel } from '../../../shared/contract';
import type { Plan } from '../../../shared/domain';
import { isRunnable } from '../../../shared/action-rules';

/** The actions the console takes itself; edit-step and replan take a file, so they stay on the command line. */
export const CONSOLE_ACTIONS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'discard', 'skip', 'set_profile', 'correct', 'approve', 'reject', 'verify', 'rewind'] as const satisfies readonly ActionId[];
export type ConsoleAction = (typeof CONSOLE_ACTIONS)[number];

export function isConsoleAction(action: ActionId): action is ConsoleAction {
  return (CONSOLE_ACTIONS as readonly ActionId[]).includes(action);
}

/**
 * Sends one action to the host through the channel its entry names (shared/actions.ts), with its
 * arguments as the entry reads them (defaults filled, text trimmed); arguments the entry refuses go
 * as given, for the host to refuse with its reason. Resolves to the plan as the host left it.
 * `plan`: the plan as the console shows it; Step on one ready to run starts it in step mode.
 */
export function sendAction<A extends ConsoleAction>(bridge: Bridge, planId: string, action: A, args: ActionArgs<A>, plan?: Plan): Promise<{ plan: Plan }> {
  if (action === 'step' && plan && isRunnable(plan)) return sendAction(bridge, planId, 'run', { step: true });
  const spec: ActionSpec = ACTIONS[action];
  const parsed = spec.args.safeParse(args);
  const call = bridge[spec.channel as Channel] as (request: object) => Promise<{ plan: Plan }>;
  return call({ planId, ...(parsed.success ? (parsed.data as object) : args) });
}
