import { useAppStore } from '../store/react';
import { formatCountdown } from '../lib/format';
import { useNow } from './use-now';

export function ConnectionBanner({ hasToken }: { hasToken: boolean }) {
  const connection = useAppStore((s) => s.connection);
  const now = useNow(500, connection.state === 'closed');
  if (connection.state === 'open') return null;
  const retrying = connection.state === 'closed' ? `Connection lost; reconnecting ${formatCountdown(connection.retryAt - now)}.` : 'Connecting to the server…';
  return (
    <div className="connection-banner" role="alert" data-testid="connection-banner" data-connection={connection.state}>
      {retrying}
      {!hasToken && connection.state === 'closed' && connection.attempt > 1 && (
        <span> This page needs the address printed by <code>agents serve</code>: it carries the access token.</span>
      )}
    </div>
  );
}
