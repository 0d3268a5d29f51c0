import { ACTIONS, type ActionArgs, type ActionChannelOf, type ActionSpec, type ChannelAction } from '../../../shared/actions';
import type { Bridge, Channel, ResponseOf } from '../../../shared/contract';
import type { Plan } from '../../../shared/domain';
import { isRunnable } from '../../../shared/action-rules';

/**
 * The actions whose channel answers the plan as the action left it, from the table and the
 * contract: the console sends any of them the same way. The others answer something else (apply's
 * result, a comparison, the error history) and have views of their own, or belong to the command
 * line (edit-step and replan take a file).
 */
export type PlanAction = { [A in ChannelAction]: ResponseOf<ActionChannelOf<A>> extends { plan: Plan } ? A : never }[ChannelAction];

/**
 * Sends one action to the host through the channel its entry names (shared/actions.ts), with its
 * arguments as the entry reads them (defaults filled, text trimmed); arguments the entry refuses go
 * as given, for the host to refuse with its reason. Resolves to the plan as the host left it.
 * `plan`: the plan as the console shows it; Step on one ready to run starts it in step mode.
 */
export function sendAction<A extends PlanAction>(bridge: Bridge, planId: string, action: A, args: ActionArgs<A>, plan?: Plan): Promise<{ plan: Plan }> {
  if (action === 'step' && plan && isRunnable(plan)) return sendAction(bridge, planId, 'run', { step: true });
  const spec: ActionSpec = ACTIONS[action];
  const parsed = spec.args.safeParse(args);
  const call = bridge[spec.channel as Channel] as (request: object) => Promise<{ plan: Plan }>;
  return call({ planId, ...(parsed.success ? (parsed.data as object) : args) });
}
