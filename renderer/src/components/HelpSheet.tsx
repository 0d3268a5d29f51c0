import { useRef } from 'react';
import { KEY_HELP } from '../store/keyboard';
import { useAppStore } from '../store/react';
import { useDialogFocus } from './use-dialog-focus';

export function HelpSheet() {
  const open = useAppStore((s) => s.helpOpen);
  const setOpen = useAppStore((s) => s.setHelpOpen);
  const closeRef = useRef<HTMLButtonElement>(null);

  useDialogFocus(open, closeRef);

  if (!open) return null;
  return (
    <div className="sheet-backdrop" onClick={() => setOpen(false)}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="help-title" data-testid="help-sheet" onClick={(e) => e.stopPropagation()}>
        <div className="sheet-head">
          <h2 id="help-title">Keyboard shortcuts</h2>
          <button ref={closeRef} type="button" className="button small" aria-label="Close keyboard shortcuts" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
        <dl className="keys">
          {KEY_HELP.map(({ keys, what }) => (
            <div key={keys} className="key-row">
              <dt>
                <kbd>{keys}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </div>
  );
}
