import { commandLine } from '../../../shared/actions';
import type { NextStep } from '../../../shared/action-ids';
import { CopyButton } from '../components/CopyButton';

/**
 * A failure's next steps: why each is suggested, and the command that takes it at the command line,
 * to copy (`hint`: the reason the card shows already). The card's own buttons take them in the
 * console; the first step's button is the primary one.
 */
export function NextSteps({ planId, steps, hint }: { planId: string; steps: readonly NextStep[]; hint: string | null }) {
  if (steps.length === 0) return null;
  return (
    <ul className="next-steps" aria-label="Next steps" data-testid="next-steps">
      {steps.map((step, index) => {
        const command = commandLine(planId, step);
        return (
          <li key={`${step.action}-${index}`} className="failure-command" data-action={step.action}>
            {/* The first step's reason is usually the hint the card shows already. */}
            {step.message !== hint && <span className="next-step-message">{step.message}</span>}
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
