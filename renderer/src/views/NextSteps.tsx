import { ACTIONS, commandLine, type NextStep, type PlanFacts } from '../../../shared/actions';
import { ActionButton } from '../components/ActionButton';
import { CopyButton } from '../components/CopyButton';
import { isConsoleAction } from '../lib/action-dispatch';
import { useAppStore } from '../store/react';

/**
 * A failure's next steps: each one a button where the console can take it in one click (not
 * discard, which the toolbar asks to confirm, nor correct, whose form takes a note), and the
 * command that takes it at the command line, to copy.
 */
export function NextSteps({ planId, steps, facts }: { planId: string; steps: readonly NextStep[]; facts: PlanFacts }) {
  const runAction = useAppStore((s) => s.runAction);
  const pending = useAppStore((s) => s.pendingAction);
  if (steps.length === 0) return null;
  return (
    <ul className="next-steps" aria-label="Next steps" data-testid="next-steps">
      {steps.map((step, index) => {
        const command = commandLine(planId, step);
        const button = isConsoleAction(step.action) && step.action !== 'discard' && step.action !== 'correct';
        return (
          <li key={`${step.action}-${index}`} className="failure-command" data-action={step.action}>
            {button && (
              <ActionButton action={step.action} facts={facts} busy={pending === step.action} onClick={() => void runAction(step.action, step.args as never)}>
                {ACTIONS[step.action].label}
              </ActionButton>
            )}
            <span className="next-step-message">{step.message}</span>
            {command && (
              <>
                <code data-testid={index === 0 ? 'failure-command' : undefined}>{command}</code>
                <CopyButton text={command} label="Copy the recovery command" />
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
