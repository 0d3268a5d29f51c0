import { useMemo, useRef, useState } from 'react';
import { stepsInOrder } from '../../../shared/decision-tree';
import { BUILTIN_PROFILES, type BuiltinProfileName } from '../../../shared/profiles';
import { useDialogFocus } from '../components/use-dialog-focus';
import { formatTime, plural } from '../lib/format';
import { useAppStore } from '../store/react';

const PROFILES = Object.keys(BUILTIN_PROFILES) as BuiltinProfileName[];

/**
 * Asks before a fork (README.md, "Fork and compare"): what the new plan starts from (the
 * checkpoint of the step, and the steps it shares), and what it changes from there. The new plan
 * opens once made; it is not run.
 */
export function ForkDialog() {
  const dialog = useAppStore((s) => s.forkDialog);
  const plan = useAppStore((s) => s.plan);
  const decisions = useAppStore((s) => s.decisions);
  const checkpoints = useAppStore((s) => s.checkpoints);
  const cancel = useAppStore((s) => s.cancelFork);
  const confirm = useAppStore((s) => s.confirmFork);
  const [profile, setProfile] = useState<BuiltinProfileName | ''>('');
  const [model, setModel] = useState('');
  const cancelButton = useRef<HTMLButtonElement>(null);
  const open = dialog !== null;
  const atStep = dialog?.atStep ?? 0;
  const description = useMemo(() => (open ? (stepsInOrder(Object.values(decisions))[atStep - 1]?.description ?? '') : ''), [open, decisions, atStep]);
  useDialogFocus(open, cancelButton);
  if (!dialog || !plan) return null;
  const checkpoint = checkpoints.find((c) => c.step === atStep);
  // Checkpoint k counts the files changed since checkpoint k-1 (the first, the files the sandbox held): the steps before the fork changed their sum.
  const changedBefore = checkpoints.filter((c) => c.step > 1 && c.step <= atStep).reduce((n, c) => n + c.filesChanged, 0);
  const tokens = checkpoint ? checkpoint.inputTokens + checkpoint.outputTokens : 0;
  const submit = () => void confirm({ profile: profile || undefined, model });

  return (
    <div className="modal-backdrop">
      <form
        className="modal confirm-fork"
        role="dialog"
        aria-modal="true"
        aria-labelledby="confirm-fork-title"
        aria-describedby="confirm-fork-what"
        aria-busy={dialog.forking || undefined}
        data-testid="fork-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            cancel();
          }
        }}
      >
        <h2 id="confirm-fork-title">Fork from step {atStep}?</h2>
        <p id="confirm-fork-what">
          A new plan starts from the sandbox as it was before step {atStep}
          {description ? <> (<q>{description}</q>)</> : null} started.{' '}
          {atStep > 1 ? `The ${plural(atStep - 1, 'step')} before it ${atStep === 2 ? 'is' : 'are'} shared with this plan, not run again.` : 'No step is shared: the new plan runs every step.'} This plan is not
          changed. The new plan opens and waits: press Run to run it from step {atStep}.
        </p>
        {checkpoint && (
          <p className="muted" data-testid="fork-checkpoint">
            Checkpoint taken <time dateTime={checkpoint.createdAt}>{formatTime(checkpoint.createdAt)}</time>
            {atStep > 1 ? `, after the steps before it changed ${plural(changedBefore, 'file')}` : ', with the project as the plan found it'}
            {/* A scripted plan uses no tokens: "0 tokens" would say nothing. */}
            {tokens > 0 ? `; ${tokens.toLocaleString('en')} tokens used by then` : ''}.
          </p>
        )}
        <div className="settings-form">
          <label htmlFor="fork-profile">Automation profile</label>
          <select id="fork-profile" className="input" value={profile} onChange={(e) => setProfile(e.currentTarget.value as BuiltinProfileName | '')}>
            <option value="">Same as this plan ({plan.automationProfile.name})</option>
            {PROFILES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          {plan.agent && (
            <>
              <label htmlFor="fork-model">Model</label>
              <input
                id="fork-model"
                className="input"
                type="text"
                value={model}
                maxLength={200}
                placeholder={`Same as this plan (${plan.agent.model ?? 'the configured one'})`}
                aria-description="provider:model, for example openai:gpt-4o; empty keeps this plan's"
                onChange={(e) => setModel(e.currentTarget.value)}
              />
            </>
          )}
        </div>
        {dialog.error && (
          <p className="inline-error" role="alert" data-testid="fork-error">
            {dialog.error}
          </p>
        )}
        <div className="toolbar-row">
          <span className="grow" />
          <button ref={cancelButton} type="button" className="button" disabled={dialog.forking} onClick={cancel}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={dialog.forking} aria-busy={dialog.forking || undefined}>
            {dialog.forking ? 'Forking…' : `Fork from step ${atStep}`}
          </button>
        </div>
      </form>
    </div>
  );
}
