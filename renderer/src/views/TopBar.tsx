import { teamSummary, workerLabel } from '../../../shared/team';
import { useAppStore } from '../store/react';

const THEME_LABELS = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' } as const;

export function TopBar() {
  const theme = useAppStore((s) => s.theme);
  const cycleTheme = useAppStore((s) => s.cycleTheme);
  const setHelpOpen = useAppStore((s) => s.setHelpOpen);
  const connection = useAppStore((s) => s.connection.state);
  const setSettingsOpen = useAppStore((s) => s.setSettingsOpen);
  const team = useAppStore((s) => s.team);
  return (
    <header className="top-bar">
      <h1 className="app-title">CleverAgents</h1>
      <span className={`connection-dot ${connection}`} role="img" aria-label={`Connection: ${connection}`} title={`Connection: ${connection}`} />
      {team && (
        <span
          className="muted team-status"
          role="status"
          aria-label="Team"
          title={[...team.workers.filter((w) => w.live).map((w) => `${workerLabel(w)}: ${w.plans.length}/${w.concurrency} plans`), `You answer as ${team.operator} on ${team.host}`].join('\n')}
        >
          {teamSummary(team)}
        </span>
      )}
      <span className="grow" />
      <button type="button" className="button small" data-testid="theme-toggle" data-theme={theme} aria-label={`${THEME_LABELS[theme]}; switch theme`} onClick={cycleTheme}>
        {THEME_LABELS[theme]}
      </button>
      <button type="button" className="button small" onClick={() => setSettingsOpen(true)}>
        Settings
      </button>
      <button type="button" className="button small" aria-keyshortcuts="?" onClick={() => setHelpOpen(true)}>
        Shortcuts <kbd aria-hidden="true">?</kbd>
      </button>
    </header>
  );
}
