import type { ActionArgs } from '../../../shared/actions';
import type { ActionId } from '../../../shared/action-ids';
import type { Bridge } from '../../../shared/contract';
import type { BuiltinProfileName } from '../../../shared/profiles';
import type { Plan } from '../../../shared/domain';
import { isRunnable } from '../../../shared/action-rules';

/** The actions the console takes itself; edit-step and replan take a file, so they stay on the command line. */
export const CONSOLE_ACTIONS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'discard', 'skip', 'set_profile', 'correct', 'approve', 'reject', 'verify', 'rewind'] as const satisfies readonly ActionId[];
export type ConsoleAction = (typeof CONSOLE_ACTIONS)[number];

/** `plan`: the plan as the console shows it, where the channel depends on its state (step). */
type Send<A extends ConsoleAction> = (bridge: Bridge, planId: string, args: ActionArgs<A>, plan?: Plan) => Promise<{ plan: Plan }>;

/** Each console action's channel: the one place the console turns an action into a call. */
const SEND: { [A in ConsoleAction]: Send<A> } = {
  run: (bridge, planId, args) => bridge['plans.run']({ planId, step: args.step ?? false }),
  // Step on a queued plan starts it in step mode; on a running one it runs one decision.
  step: (bridge, planId, _args, plan) => (plan && isRunnable(plan) ? bridge['plans.run']({ planId, step: true }) : bridge['plans.step']({ planId })),
  continue: (bridge, planId) => bridge['plans.continue']({ planId }),
  pause: (bridge, planId) => bridge['plans.pause']({ planId }),
  retry: (bridge, planId) => bridge['plans.retry']({ planId }),
  reset: (bridge, planId) => bridge['plans.reset']({ planId }),
  discard: (bridge, planId) => bridge['plans.discard']({ planId }),
  skip: (bridge, planId, args) => bridge['plans.skip']({ planId, step: args.step }),
  // The console offers the built-in profiles only.
  set_profile: (bridge, planId, args) => bridge['plans.setProfile']({ planId, profile: args.profile as BuiltinProfileName }),
  correct: (bridge, planId, args) => bridge['plans.correct']({ planId, note: args.note?.trim() || undefined }),
  approve: (bridge, planId, args) => bridge['plans.approve']({ planId, all: args.all ?? false, ...(args.more ? { more: args.more } : {}) }),
  reject: (bridge, planId, args) => bridge['plans.reject']({ planId, reason: args.reason }),
  verify: (bridge, planId) => bridge['plans.verify']({ planId }),
  // Asked for once the operator confirmed the files it changes (store/checkpoints-slice).
  rewind: (bridge, planId, args) => bridge['plans.rewind']({ planId, toStep: args.toStep }),
};

export function isConsoleAction(action: ActionId): action is ConsoleAction {
  return (CONSOLE_ACTIONS as readonly ActionId[]).includes(action);
}

/** Sends one action to the host; resolves to the plan as the host left it. */
export function sendAction<A extends ConsoleAction>(bridge: Bridge, planId: string, action: A, args: ActionArgs<A>, plan?: Plan): Promise<{ plan: Plan }> {
  return (SEND[action] as Send<A>)(bridge, planId, args, plan);
}
