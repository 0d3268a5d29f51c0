import type { ActionChannelOf, ChannelAction } from '../../shared/actions';
import type { ParsedRequestOf, ResponseOf } from '../../shared/contract';
import type { Plan } from '../../shared/domain';
import type { PlanService } from '../app/plan-service';
import type { BreakpointBook } from './breakpoints';

/** What performing an action on the host has to hand: the service, who answers, and the run's start. */
export interface ActionHost {
  service: PlanService;
  /** Who the answer is recorded as (the operator the host names, else "console"). */
  by(): string;
  breakpoints: BreakpointBook;
  /**
   * Starts a run and answers once it has started, not when it ends, which can be hours away: a
   * refusal is still the request's error, and a run that throws after that is logged.
   */
  startRun(planId: string, begin: (run: { breakpoints: string[]; onStarted: () => void }) => Promise<unknown>): Promise<{ plan: Plan }>;
  /** Where a fork's relative project resolves, and where projects must lie. */
  baseDir: string;
  projectRoots?: readonly string[];
}

/** An action's arguments as its channel parsed them (shared/contract.ts builds the request from the action's entry). */
export type ParsedArgs<A extends ChannelAction> = Omit<ParsedRequestOf<ActionChannelOf<A>>, 'planId'>;
type Perform<A extends ChannelAction> = (host: ActionHost, planId: string, args: ParsedArgs<A>) => Promise<ResponseOf<ActionChannelOf<A>>>;

const planOf = async (plan: Promise<Plan>) => ({ plan: await plan });

/**
 * Each action a client can ask for, and the use case that performs it: the router serves every
 * action's channel from this table, so an action is routed by its entry here, not by router code.
 */
export const PERFORM: { [A in ChannelAction]: Perform<A> } = {
  run: (host, planId, { step }) => host.startRun(planId, (run) => host.service.run(planId, { step, ...run })),
  // Step on a plan that is ready to run starts it in step mode; on a run of this process it runs one decision.
  step: async (host, planId) => {
    await host.service.requireAllowed('step', planId);
    if (!host.service.isRunning(planId)) return host.startRun(planId, (run) => host.service.run(planId, { step: true, ...run }));
    return planOf(host.service.control(planId, 'step'));
  },
  continue: (host, planId) => planOf(host.service.control(planId, 'continue')),
  pause: (host, planId) => planOf(host.service.control(planId, 'pause')),
  retry: (host, planId) => host.startRun(planId, (run) => host.service.retry(planId, run)),
  reset: (host, planId) => planOf(host.service.reset(planId)),
  apply: (host, planId, args) => host.service.apply(planId, args),
  discard: async (host, planId) => {
    const plan = await host.service.discard(planId);
    host.breakpoints.forget(planId);
    return { plan };
  },
  approve: (host, planId, { all, more, input }) => host.startRun(planId, (run) => host.service.approve(planId, { by: host.by(), all, more, input }, run)),
  reject: (host, planId, { reason, cancel }) => host.startRun(planId, (run) => host.service.reject(planId, { by: host.by(), reason, cancel }, run)),
  skip: (host, planId, { step }) => planOf(host.service.skip(planId, { by: host.by(), step })),
  set_profile: (host, planId, { profile }) => planOf(host.service.setProfile(planId, { by: host.by(), profile })),
  correct: (host, planId, { note }) => host.startRun(planId, (run) => host.service.correct(planId, { by: host.by(), reason: note }, run)),
  // The checks run without breakpoints: they stop at nothing.
  verify: (host, planId) => host.startRun(planId, ({ onStarted }) => host.service.verify(planId, { onStarted })),
  rewind: (host, planId, { toStep }) => host.service.rewind(planId, { by: host.by(), toStep }),
  fork: (host, planId, args) => host.service.fork(planId, { by: host.by(), ...args }, host.baseDir, { roots: host.projectRoots }),
  compare: (host, planId, args) => host.service.compare(planId, args.with),
  show_errors: (host, planId) => host.service.errors(planId),
};
