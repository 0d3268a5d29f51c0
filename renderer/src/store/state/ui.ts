import type { ConnectionStatus } from '../../bridge/connection';

export type ThemePreference = 'system' | 'light' | 'dark';

export type DiffMode = 'unified' | 'split';

/** The list or tree that j/k moves in. */
export type FocusRegion = 'plans' | 'tree' | 'files' | 'events';

export interface UiSlice {
  theme: ThemePreference;
  helpOpen: boolean;
  diffMode: DiffMode;
  focusRegion: FocusRegion;
  /** The latest message for the live region; `id` changes so a repeated text is announced again. */
  status: { text: string; id: number };
  connection: ConnectionStatus;
  setTheme(theme: ThemePreference): void;
  cycleTheme(): void;
  setHelpOpen(open: boolean): void;
  setDiffMode(mode: DiffMode): void;
  setFocusRegion(region: FocusRegion): void;
  announce(text: string): void;
  setConnection(status: ConnectionStatus): void;
}
