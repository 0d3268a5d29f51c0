import type { Plan } from '../../../shared/domain';
import { STATUS_LABELS } from '../../../shared/vocabulary';

export const PLAN_ACTIONS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'apply', 'discard'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

type PlanState = Pick<Plan, 'phase' | 'processingState'> & Partial<Pick<Plan, 'projectPath' | 'waitingFor'>>;

/** A queued plan that has not reached apply can run (strategize, then execute). */
export function isRunnable(plan: PlanState): boolean {
  return plan.processingState === 'queued' && (plan.phase === 'strategize' || plan.phase === 'execute');
}

/** Which controls the plan's phase and state allow; mirrors the engine's own checks. */
export function allowedActions(plan: PlanState): Record<PlanAction, boolean> {
  const { phase, processingState: state } = plan;
  const running = state === 'processing' || state === 'paused';
  // A plan that waits for an approval goes on only with the operator's answer.
  const answerFirst = plan.waitingFor === 'approval';
  return {
    run: isRunnable(plan),
    // Step on a queued plan starts it in step mode; on a running one it runs one decision.
    step: isRunnable(plan) || (running && !answerFirst),
    continue: running && !answerFirst,
    pause: state === 'processing',
    retry: state === 'errored' && phase !== 'apply',
    reset: state === 'errored',
    // Apply writes into the project directory; a plan without one has nowhere to apply to.
    apply: phase === 'apply' && (state === 'queued' || state === 'errored') && plan.projectPath !== null,
    discard: state !== 'complete' && state !== 'cancelled' && state !== 'processing',
  };
}

export const ACTION_LABELS: Record<PlanAction, string> = {
  run: 'Run',
  step: 'Step',
  continue: 'Continue',
  pause: 'Pause',
  retry: 'Retry',
  reset: 'Reset',
  apply: 'Apply',
  discard: 'Discard',
};

/** What a control does, for its accessible label and tooltip. */
export function actionDescription(action: PlanAction, plan: PlanState): string {
  switch (action) {
    case 'run':
      return 'Run the plan: strategize and execute, stopping before apply';
    case 'step':
      return isRunnable(plan) ? 'Start the plan in step mode: pause before each decision' : 'Run exactly one decision, then pause';
    case 'continue':
      return 'Continue to the end or the next breakpoint';
    case 'pause':
      return 'Pause before the next decision';
    case 'retry':
      return 'Retry from the failed step';
    case 'reset':
      return `Reset the ${STATUS_LABELS.failed.toLowerCase()} plan: it is ${STATUS_LABELS.ready_to_run} again, for manual recovery`;
    case 'apply':
      return plan.projectPath === null ? 'This plan has no project directory to apply to' : 'Apply the changeset to the project';
    case 'discard':
      return 'Discard the plan and its sandbox';
  }
}
