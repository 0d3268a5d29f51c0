import { useState, type FormEvent } from 'react';
import { ACTIONS } from '../../../shared/actions';
import { useAppStore } from '../store/react';
import { actionState } from '../store/plan-actions';

/** `correct`: the model runs the failed step again, told of the failure and the operator's note. */
export function AskAgentToFix({ primary }: { primary: boolean }) {
  const correct = useAppStore((s) => s.correctStep);
  const error = useAppStore((s) => s.correctError);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  // Only where the host can use the plan's model: otherwise the button could only fail.
  const usable = useAppStore((s) => s.planModel?.usable === true);
  const correctable = useAppStore((s) => actionState(s, 'correct').allowed);
  if (!usable || !correctable) return null;
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await correct(note);
      setNote('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="ask-agent" onSubmit={(e) => void onSubmit(e)}>
      <label htmlFor="correct-note">Note for the agent</label>
      <input id="correct-note" className="input" value={note} maxLength={4000} placeholder="What to do differently (optional)" onChange={(e) => setNote(e.currentTarget.value)} />
      <button type="submit" className={primary ? 'button primary' : 'button'} disabled={busy} aria-busy={busy || undefined} aria-description={ACTIONS.correct.description}>
        {ACTIONS.correct.title}
      </button>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
