import { useEffect } from 'react';
import { ConnectionBanner } from '../components/ConnectionBanner';
import { StatePanel } from '../components/StatePanel';
import { HelpSheet } from '../components/HelpSheet';
import { LiveRegion } from '../components/LiveRegion';
import { handleKey } from '../store/keyboard';
import { useAppStore, useAppStoreApi } from '../store/react';
import type { ThemePreference } from '../store/state/ui';
import { PlansPanel } from './PlansPanel';
import { PlanView } from './PlanView';
import { SettingsSheet } from './SettingsSheet';
import { TopBar } from './TopBar';
import { useAttentionTitle } from '../notify/attention-title';
import { useBrowserNotifications } from '../notify/browser-notifications';

const THEME_KEY = 'agents.theme';

function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && target.type !== 'checkbox' && target.type !== 'radio' && target.type !== 'button';
}

/** Global keys; text fields keep theirs, and Enter on a button stays a click. */
function useKeyboard() {
  const store = useAppStoreApi();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      // The element the key went to, also inside a shadow root (the editor's), where event.target is its host.
      const origin = event.composedPath()[0] ?? event.target;
      if (event.key !== 'Escape' && isTextEntry(origin)) return;
      const target = origin instanceof HTMLElement ? origin : null;
      if ((event.key === 'Enter' || event.key === ' ') && target?.closest('button, a, input, [role="tab"]')) return;
      const inRegion = target?.dataset.region !== undefined;
      if (handleKey(store, event.key, { inRegion })) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [store]);
}

/** The chosen theme on <html>; "system" leaves it to prefers-color-scheme. */
function useTheme() {
  const theme = useAppStore((s) => s.theme);
  const setTheme = useAppStore((s) => s.setTheme);
  useEffect(() => {
    try {
      const saved = localStorage.getItem(THEME_KEY);
      if (saved === 'light' || saved === 'dark') setTheme(saved as ThemePreference);
    } catch {
      // No storage: the system theme it is.
    }
  }, [setTheme]);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'system') delete root.dataset.theme;
    else root.dataset.theme = theme;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      // Not persisted; fine.
    }
  }, [theme]);
}

/** `data-app-state` on <body>, for tests to wait on instead of sleeping. */
function useAppStateMarker() {
  const status = useAppStore((s) => s.plansStatus);
  useEffect(() => {
    const body = document.body.dataset;
    if (status === 'loaded') body.appState = 'loaded';
    else if (status === 'error' && body.appState !== 'loaded') body.appState = 'error';
  }, [status]);
}

/** `nativeFileDialog`: in the desktop app, Create plan opens the system's file dialog. */
export function App({ hasToken, nativeFileDialog = false }: { hasToken: boolean; nativeFileDialog?: boolean }) {
  useKeyboard();
  useTheme();
  useAppStateMarker();
  // The desktop app's window title names the open plan; a browser tab keeps the short title.
  useAttentionTitle(nativeFileDialog);
  useBrowserNotifications();
  const connection = useAppStore((s) => s.connection.state);
  return (
    <div className="app" data-testid="app" data-connection={connection}>
      <TopBar />
      <ConnectionBanner hasToken={hasToken} />
      {connection === 'refused' ? (
        <main className="layout">
          <StatePanel kind="error" title={hasToken ? 'This address has a wrong access token.' : 'This address has no access token.'} testId="token-refused">
            <p>Open the address agents serve printed (with ?token=…): the token changes with each start.</p>
          </StatePanel>
        </main>
      ) : (
      <main className="layout">
        <aside className="sidebar" aria-label="Plans">
          <PlansPanel nativeFileDialog={nativeFileDialog} />
        </aside>
        <section className="content" aria-label="Selected plan">
          <PlanView />
        </section>
      </main>
      )}
      <HelpSheet />
      <SettingsSheet />
      <LiveRegion />
    </div>
  );
}
