import type { ReactNode } from 'react';

/** The designed empty, loading and error states: a message, and an action when one helps. */
export function StatePanel({ kind, title, children, testId }: { kind: 'empty' | 'loading' | 'error'; title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className={`state-panel state-panel-${kind}`} data-testid={testId ?? `${kind}-state`} role={kind === 'error' ? 'alert' : undefined} aria-busy={kind === 'loading' || undefined}>
      {kind === 'loading' && <span className="spinner" aria-hidden="true" />}
      <p className="state-panel-title">{title}</p>
      {children}
    </div>
  );
}
