import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { ActionId } from '../../../shared/action-ids';
import type { Plan } from '../../../shared/domain';
import { failuresOf } from '../../../shared/describe';
import { CopyButton } from '../components/CopyButton';
import { useNow } from '../components/use-now';
import { formatCountdown, formatTime } from '../lib/format';
import { ActionButton } from '../components/ActionButton';
import { ChangeLinks } from '../components/ChangeLinks';
import { RecoveryActions } from './RecoveryActions';
import { useAppStore } from '../store/react';
import { AskAgentToFix } from './AskAgentToFix';
import { FailureSandboxActions } from './FailureSandbox';
import { NextSteps } from './NextSteps';
import { FailedChecksActions, failedChecksTitle } from './ChecksPanel';

/** The actions the failure card has a button for. */
const CARD_ACTIONS = new Set<ActionId | undefined>(['retry', 'reset', 'skip', 'set_profile', 'correct', 'verify']);
const onCard = (action: ActionId | undefined) => CARD_ACTIONS.has(action);

export function FailureCard({ plan }: { plan: Plan }) {
  const errors = useAppStore((s) => s.errors);
  const hints = useAppStore((s) => s.recoveryHints);
  const nextRetry = useAppStore((s) => s.nextRetry);
  const decisions = useAppStore((s) => s.decisions);
  const runAction = useAppStore((s) => s.runAction);
  const retrying = nextRetry !== null && plan.processingState === 'processing';
  // While a file of the sandbox is open to fix the cause, the card keeps its title, message and
  // actions only, so the editor below gets the window's height.
  const editing = useAppStore((s) => s.editor !== null && s.tab === 'changes');
  const now = useNow(250, retrying);

  const attempts = useMemo(() => failuresOf(errors).at(-1) ?? [], [errors]);
  const last = attempts.at(-1);
  const detailsDecision = typeof plan.errorDetails.decisionId === 'string' ? plan.errorDetails.decisionId : null;
  const failedId = useMemo(
    () =>
      Object.values(decisions).find((d) => d.status === 'failed' && d.type !== 'error_recovery')?.id ??
      last?.decisionId ??
      detailsDecision ??
      nextRetry?.decisionId ??
      null,
    [decisions, last, detailsDecision, nextRetry],
  );
  const failedChanges = useAppStore(useShallow((s) => (failedId ? s.changeEntries.filter((e) => e.decisionId === failedId) : [])));

  const showRetry = retrying && nextRetry.at > now - 1000;
  if (plan.processingState !== 'errored' && !showRetry) return null;

  const step = failedId ? decisions[failedId] : undefined;
  // The host's hints once loaded; until then the step the failure itself suggests.
  const steps = hints.length > 0 ? hints : last?.next ? [last.next] : [];
  // The first next step is the card's primary button (Retry where the step is not one the card has).
  const suggested = steps[0]?.action;
  const hint = last?.hint ?? hints[0]?.message ?? null;
  const category = last?.category ?? (typeof plan.errorDetails.category === 'string' ? plan.errorDetails.category : 'unknown');
  // Numbered as `agents plan tree` numbers steps.
  const stepNumber = step ? stepsInOrder(Object.values(decisions)).findIndex((d) => d.id === step.id) + 1 : 0;
  const title = showRetry
    ? `Attempt ${Math.max(1, nextRetry.attempt - 1)} failed — retrying automatically ${formatCountdown(nextRetry.at - now)}`
    : category === 'verification'
      ? failedChecksTitle(plan)
      : category === 'interrupted'
      ? step
        ? `Interrupted during step ${stepNumber}: ${step.description}`
        : `Interrupted while ${plan.phase === 'strategize' ? 'planning the steps' : plan.phase === 'apply' ? 'applying' : 'running'}`
      : `${plan.phase === 'apply' ? 'Apply' : step ? 'Step' : plan.phase} failed${step ? `: ${step.description}` : ''}`;
  const sandbox = plan.sandboxRefs[0] ?? null;

  return (
    <section className={`failure-card${showRetry ? ' retrying' : ''}${editing ? ' editing' : ''}`} data-testid="failure-card" data-category={category} data-retrying={showRetry} aria-labelledby="failure-title">
      <h3 id="failure-title">{title}</h3>
      {/* The details scroll; the title and the actions stay in view however long they get. */}
      <div className="failure-body" tabIndex={0} role="region" aria-label="Failure details">
      <p className="failure-message" data-testid="failure-message">
        {plan.errorMessage ?? last?.message ?? nextRetry?.error ?? 'The plan stopped with an error.'}
      </p>
      <dl className="failure-facts">
        <div>
          <dt id="failure-category-label">Category</dt>
          <dd aria-labelledby="failure-category-label">{category}</dd>
        </div>
        {last && (
          <div>
            <dt id="failure-recovery-label">Recovery</dt>
            <dd aria-labelledby="failure-recovery-label">
              {last.recoveryAction.replaceAll('_', ' ')}
              {last.retriable ? ' (retriable)' : ''}
            </dd>
          </div>
        )}
        {showRetry && (
          <div>
 <dt id="failure-retry-label">Next automatic retry</dt>
            <dd aria-labelledby="failure-retry-label" data-testid="retry-countdown" data-retry-at={new Date(nextRetry.at).toISOString()}>
              {formatCountdown(nextRetry.at - now)}
            </dd>
          </div>
        )}
      </dl>
      {/* Under the facts, where the card's scrolling cannot part the heading from its list. A rejected
          call was never run: there is no attempt to list, the message says who said no. */}
      {attempts.length > 0 && category !== 'rejected' && (
        <div className="failure-attempts">
          <h4>Attempts</h4>
          <ol>
            {attempts.map((e) => (
              <li key={e.id} data-testid="failure-attempt" data-attempt={e.attempt} data-outcome={e.outcome}>
                <span className="attempt-no">#{e.attempt}</span> <time dateTime={e.createdAt}>{formatTime(e.createdAt)}</time> <span className="muted">{e.category}</span> {e.message}
                <span className="muted"> — {e.outcome === 'retried' ? 'retried' : 'gave up'}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
      {hint && (
        <p className="failure-hint" data-testid="failure-hint">
          <strong>Hint:</strong> {hint}
        </p>
      )}
      <NextSteps planId={plan.id} steps={steps} hint={hint} />
      {sandbox && plan.processingState === 'errored' && (
        <div className="failure-command failure-sandbox">
          <span className="muted">Sandbox</span>
          <code data-testid="failure-sandbox">{sandbox}</code>
          <CopyButton text={sandbox} label="Copy the sandbox path, where the plan's files are" copied="Sandbox path copied" />
          <FailureSandboxActions plan={plan} failedId={failedId} />
        </div>
      )}
      {failedChanges.length > 0 && (
        <div className="failure-changes" data-testid="failure-changes">
          <h4>What the step changed before it failed</h4>
          <ul>
            <ChangeLinks entries={failedChanges} />
          </ul>
        </div>
      )}
      </div>
      <div className="failure-footer">
      {plan.processingState === 'errored' && (
        <div className="failure-actions">
          <ActionButton action="retry" primary={suggested === 'retry' || !onCard(suggested)} testId="failure-retry" onClick={() => void runAction('retry')} />
          <ActionButton action="reset" primary={suggested === 'reset'} testId="failure-reset" onClick={() => void runAction('reset')} />
          {category === 'verification' && <FailedChecksActions primary={suggested === 'verify'} />}
        </div>
      )}
      <AskAgentToFix primary={suggested === 'correct'} />
      <RecoveryActions plan={plan} suggested={suggested} />
      </div>
    </section>
  );
}
