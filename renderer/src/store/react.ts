import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './types';

export const StoreContext = createContext<AppStore | null>(null);

export function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore needs a <StoreContext.Provider>');
  return store;
}

/** An atomic selector on the app store; wrap derived arrays in `useShallow`. */
export function useAppStore<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}
