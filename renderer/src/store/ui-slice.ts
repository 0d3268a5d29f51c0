import type { ConnectionStatus } from '../bridge/connection';
import type { SliceCreator } from './types';

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

const THEME_ORDER: ThemePreference[] = ['system', 'light', 'dark'];

export const createUiSlice: SliceCreator<UiSlice> = (set, get) => ({
  theme: 'system',
  helpOpen: false,
  diffMode: 'unified',
  focusRegion: 'plans',
  status: { text: '', id: 0 },
  connection: { state: 'open' },
  setTheme: (theme) => set({ theme }),
  cycleTheme: () => set({ theme: THEME_ORDER[(THEME_ORDER.indexOf(get().theme) + 1) % THEME_ORDER.length] }),
  setHelpOpen: (helpOpen) => set({ helpOpen }),
  setDiffMode: (diffMode) => set({ diffMode }),
  setFocusRegion: (focusRegion) => {
    if (get().focusRegion !== focusRegion) set({ focusRegion });
  },
  announce: (text) => set({ status: { text, id: get().status.id + 1 } }),
  setConnection: (connection) => set({ connection }),
});
