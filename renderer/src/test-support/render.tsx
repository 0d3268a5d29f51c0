import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { StoreContext } from '../store/react';
import type { AppStore } from '../store/types';

/** The markup of `node` with `store` as the app's store; server rendering reads a store's initial state, so the current one stands in for it. */
export function render(store: AppStore, node: ReactNode): string {
  return renderToStaticMarkup(<StoreContext.Provider value={{ ...store, getInitialState: store.getState }}>{node}</StoreContext.Provider>);
}
