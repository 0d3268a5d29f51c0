import { useMemo, useRef } from 'react';
import { REWIND_VERBS } from '../../../shared/checkpoints';
import { stepsInOrder } from '../../../shared/decision-tree';
import { useDialogFocus } from '../components/use-dialog-focus';
import { plural } from '../lib/format';
import { useAppStore } from '../store/react';

/**
 * Asks before a rewind (README.md, "Checkpoints"): the files it changes in the sandbox, the
 * operator's own edits among them marked, and what becomes of the steps and the recorded changes.
 */
export function RewindDialog() {
  const dialog = useAppStore((s) => s.rewindDialog);
  const rewinding = useAppStore((s) => s.rewinding);
  const refused = useAppStore((s) => s.rewindError);
  const decisions = useAppStore((s) => s.decisions);
  const cancel = useAppStore((s) => s.cancelRewind);
  const confirm = useAppStore((s) => s.confirmRewind);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const open = dialog !== null;
  const toStep = dialog?.toStep ?? 0;
  const description = useMemo(() => (open ? (stepsInOrder(Object.values(decisions))[toStep - 1]?.description ?? '') : ''), [open, decisions, toStep]);
  // Focus goes to Cancel: a rewind undoes work, the operator's own edits among it.
  useDialogFocus(open, cancelButton);
  if (!dialog) return null;
  const { preview, loading, error } = dialog;
  const later = preview ? preview.steps - 1 : 0;

  return (
    <div className="modal-backdrop">
      <div
        className="modal confirm-rewind"
        role="dialog"
        aria-modal="true"
        aria-labelledby="confirm-rewind-title"
        aria-describedby="confirm-rewind-what"
        aria-busy={loading || rewinding || undefined}
        data-testid="rewind-dialog"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            cancel();
          }
        }}
      >
        <h2 id="confirm-rewind-title">Rewind to before step {toStep}?</h2>
        <p id="confirm-rewind-what">
          The sandbox goes back to what it held before step {toStep}
          {description ? <> (<q>{description}</q>)</> : null} started. Step {toStep}
          {later > 0 ? ` and the ${plural(later, 'step')} after it` : ''} will be pending again, and Run runs {later > 0 ? 'them' : 'it'} again.
        </p>
        {loading && !preview && (
          <p className="muted" role="status">
            Working out what the rewind changes…
          </p>
        )}
        {error && (
          <p className="inline-error" role="alert">
            {error}
          </p>
        )}
        {preview && (
          <>
            {preview.operatorEdits.length > 0 && (
              <p className="rewind-own-edits" data-testid="rewind-own-edits">
                Your own edits to {plural(preview.operatorEdits.length, 'file')} after that point are undone too (marked <strong>your edit</strong>).
              </p>
            )}
            {preview.files.length > 0 ? (
              <>
                <h3 className="confirm-files-title">
                  {plural(preview.files.length, 'file')} will change in the sandbox
                </h3>
                <ul className="confirm-files rewind-files" aria-label="Files the rewind changes">
                  {preview.files.map((f) => (
                    <li key={f.path} data-operation={f.operation} data-own-edit={f.editedByOperator || undefined}>
                      <span className={`rewind-op rewind-op-${f.operation}`}>{REWIND_VERBS[f.operation]}</span> <code>{f.path}</code>
                      {f.editedByOperator && <span className="your-edit">your edit</span>}
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <p className="muted">No file changes: the sandbox already holds what it held then.</p>
            )}
            {preview.entriesRewound > 0 && (
              <p className="muted">
                The {plural(preview.entriesRewound, 'change')} recorded after it {preview.entriesRewound === 1 ? 'stays' : 'stay'} in the history, marked rewound, and {preview.entriesRewound === 1 ? 'is' : 'are'} never applied.
              </p>
            )}
          </>
        )}
        {refused && (
          <p className="inline-error" role="alert" data-testid="rewind-error">
            {refused}
          </p>
        )}
        <div className="toolbar-row">
          <span className="grow" />
          <button ref={cancelButton} type="button" className="button" disabled={rewinding} onClick={cancel}>
            Cancel
          </button>
          <button type="button" className="button danger" disabled={!preview || loading || rewinding} aria-busy={rewinding || undefined} onClick={() => void confirm()}>
            {rewinding ? 'Rewinding…' : `Rewind to before step ${toStep}`}
          </button>
        </div>
      </div>
    </div>
  );
}
