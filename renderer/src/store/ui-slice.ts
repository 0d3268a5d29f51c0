import type { SliceCreator } from './types';
import type { ThemePreference, UiSlice } from './state/ui';

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
