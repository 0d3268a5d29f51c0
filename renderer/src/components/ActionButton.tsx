import type { ReactNode } from 'react';
import { ACTIONS } from '../../../shared/actions';
import type { ActionId } from '../../../shared/action-ids';
import { actionState } from '../store/plan-actions';
import { useAppStore } from '../store/react';

/**
 * A control for one operator action, from the action table: its text, its key, and, when the
 * open plan does not allow it, the host's reason as its description and tooltip.
 */
export function ActionButton({
  action,
  onClick,
  busy = false,
  disabled = false,
  reason,
  primary = false,
  testId,
  children,
}: {
  action: ActionId;
  onClick: () => void;
  busy?: boolean;
  /** Off for a reason of the control's own (nothing chosen yet), beside the rule's. */
  disabled?: boolean;
  /** Why it is off for that reason of its own: its description then, where the rule allows the action. */
  reason?: string;
  primary?: boolean;
  testId?: string;
  children?: ReactNode;
}) {
  const spec = ACTIONS[action];
  const verdict = useAppStore((s) => actionState(s, action));
  const description = !verdict.allowed ? verdict.reason : disabled && reason ? reason : spec.description;
  return (
    <button
      type="button"
      className={`button${primary ? ' primary' : ''}`}
      data-testid={testId}
      disabled={!verdict.allowed || busy || disabled}
      aria-busy={busy || undefined}
      aria-description={description}
      aria-keyshortcuts={spec.keys[0]?.key}
      title={description}
      onClick={onClick}
    >
      {children ?? spec.title}
    </button>
  );
}
