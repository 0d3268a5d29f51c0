import type { ActionArgs, ActionId } from '../../../shared/actions';
import type { Bridge } from '../../../shared/contract';
import type { BuiltinProfileName, Plan } from '../../../shared/domain';
import { isRunnable } from './plan-facts';

/** The actions the console takes itself; edit-step and replan take a file, so they stay on the command line. */
export const CONSOLE_ACTIONS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'discard', 'skip', 'set_profile', 'correct', 'approve', 'reject'] as const satisfies readonly ActionId[];
export type ConsoleAction = (typeof CONSOLE_ACTIONS)[number];

type Send<A extends ConsoleAction> = (bridge: Bridge, plan: Plan, args: ActionArgs<A>) => Promise<{ plan: Plan }>;

/** Each console action's channel: the one place the console turns an action into a call. */
const SEND: { [A in ConsoleAction]: Send<A> } = {
  run: (bridge, plan, args) => bridge['plans.run']({ planId: plan.id, step: args.step ?? false }),
  // Step on a queued plan starts it in step mode; on a running one it runs one decision.
  step: (bridge, plan) => (isRunnable(plan) ? bridge['plans.run']({ planId: plan.id, step: true }) : bridge['plans.step']({ planId: plan.id })),
  continue: (bridge, plan) => bridge['plans.continue']({ planId: plan.id }),
  pause: (bridge, plan) => bridge['plans.pause']({ planId: plan.id }),
  retry: (bridge, plan) => bridge['plans.retry']({ planId: plan.id }),
  reset: (bridge, plan) => bridge['plans.reset']({ planId: plan.id }),
  discard: (bridge, plan) => bridge['plans.discard']({ planId: plan.id }),
  skip: (bridge, plan, args) => bridge['plans.skip']({ planId: plan.id, step: args.step }),
  // The console offers the built-in profiles only.
  set_profile: (bridge, plan, args) => bridge['plans.setProfile']({ planId: plan.id, profile: args.profile as BuiltinProfileName }),
  correct: (bridge, plan, args) => bridge['plans.correct']({ planId: plan.id, note: args.note?.trim() || undefined }),
  approve: (bridge, plan, args) => bridge['plans.approve']({ planId: plan.id, all: args.all ?? false }),
  reject: (bridge, plan, args) => bridge['plans.reject']({ planId: plan.id, reason: args.reason }),
};

export function isConsoleAction(action: ActionId): action is ConsoleAction {
  return (CONSOLE_ACTIONS as readonly ActionId[]).includes(action);
}

/** Sends one action to the host; resolves to the plan as the host left it. */
export function sendAction<A extends ConsoleAction>(bridge: Bridge, plan: Plan, action: A, args: ActionArgs<A>): Promise<{ plan: Plan }> {
  return (SEND[action] as Send<A>)(bridge, plan, args);
}
