import { useAppStore } from '../store/react';

/** Announces state changes and results to screen readers, and shows them in the status bar. */
export function LiveRegion() {
  const status = useAppStore((s) => s.status);
  return (
    <div className="status-bar" role="status" aria-live="polite" data-testid="status-message" data-status-id={status.id}>
      {status.text}
    </div>
  );
}
