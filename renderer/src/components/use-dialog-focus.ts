import { type RefObject, useEffect } from 'react';

/** While a dialog is open its `target` has the focus; when it closes, the focus goes back where it was. */
export function useDialogFocus(open: boolean, target: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    target.current?.focus();
    return () => previous?.focus();
  }, [open, target]);
}
