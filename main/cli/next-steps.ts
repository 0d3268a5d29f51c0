import { commandLine } from '../../shared/actions';
import { type NextStep, NextStepSchema } from '../../shared/action-ids';
import type { Plan } from '../../shared/domain';
import type { ErrorRecord } from '../../shared/error-records';

/**
 * Next steps as the command line shows them: each one the command that takes it
 * (`commandLine`, from the action table). The engine and the database hold only the action and
 * its arguments; these lines, and the `command` fields of the JSON output, are made here.
 */

/** The command of a stored next step, or null when there is none (or it is not one). */
export function nextCommand(planId: string, next: unknown): string | null {
  const parsed = NextStepSchema.safeParse(next);
  return parsed.success ? commandLine(planId, parsed.data) : null;
}

/** "  Retry the failed phase…\n    $ agents plan retry P": a step and its command, for `plan errors`. */
export function formatNextSteps(planId: string, steps: readonly NextStep[]): string[] {
  return steps.map((step) => {
    const command = commandLine(planId, step);
    return `  ${step.message}${command ? `\n    $ ${command}` : ''}`;
  });
}

/** A plan as the CLI prints it in JSON: the error details also name the next step's command (`recoveryCommand`). */
export function planWithCommand<P extends Pick<Plan, 'id' | 'errorDetails'>>(plan: P): P {
  if (!('next' in plan.errorDetails)) return plan;
  return { ...plan, errorDetails: { ...plan.errorDetails, recoveryCommand: nextCommand(plan.id, plan.errorDetails.next) } };
}

/** `plan errors --json`: each record and each hint also carries its command, as the CLI always printed them. */
export function errorsWithCommands<R extends { planId: string; errors: ErrorRecord[]; recoveryHints: NextStep[] }>(result: R) {
  return {
    ...result,
    errors: result.errors.map((e) => ({ ...e, command: nextCommand(e.planId, e.next) })),
    recoveryHints: result.recoveryHints.map((h) => ({ ...h, command: commandLine(result.planId, h) })),
  };
}
