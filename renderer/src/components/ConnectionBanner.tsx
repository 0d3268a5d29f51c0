import { useAppStore } from '../store/react';
import { formatCountdown } from '../lib/format';
import { useNow } from './use-now';

export function ConnectionBanner({ hasToken }: { hasToken: boolean }) {
  const connection = useAppStore((s) => s.connection);
  const now = useNow(500, connection.state === 'closed');
  if (connection.state === 'refused') return null;
  // The first connection attempt is shown by the loading states; only a lost connection gets a banner.
  if (connection.state === 'open' || (connection.state === 'connecting' && connection.attempt === 0)) return null;
  const retrying = connection.state === 'closed' ? `Connection lost; reconnecting ${formatCountdown(connection.retryAt - now)}.` : 'Reconnecting to the server…';
  return (
    <div className="connection-banner" role="alert" data-testid="connection-banner" data-connection={connection.state}>
      {retrying}
      {connection.state === 'closed' && connection.attempt > 2 && (
        <span>
          {' '}
          {hasToken
            ? 'If agents serve was restarted, open the new address it printed: the access token changes with each start.'
            : 'This page needs the address printed by agents serve: it carries the access token.'}
        </span>
      )}
    </div>
  );
}
