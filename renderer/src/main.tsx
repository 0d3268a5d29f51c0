import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { selectBridge } from './bridge/select-bridge';
import { createAppRuntime } from './store/create-store';
import { StoreContext } from './store/react';
import { handleKey } from './store/keyboard';
import { App } from './views/App';
import './styles.css';
import './approvals.css';
import './editor.css';
import './checks.css';
import './checkpoints.css';
import './fork.css';

// The composition root: pick the transport, build the store, start live updates, render.
document.body.dataset.appState = 'loading';
const selected = selectBridge(window);
const runtime = createAppRuntime({ bridge: selected.bridge });
const { store } = runtime;
// Only the desktop app's host can show a folder in the system's file manager.
store.setState({ opensFolders: selected.transport === 'electron' });

store.getState().setConnection(selected.connection.get());
// After a lost connection, reload what may have changed meanwhile (events resume on their own).
let lost = false;
selected.connection.subscribe((status) => {
  store.getState().setConnection(status);
  if (status.state === 'closed') lost = true;
  else if (status.state === 'open' && lost) {
    lost = false;
    runtime.resync();
  }
});
runtime.start();
// The desktop app's notification, clicked: its plan opens.
const stopOpening = selected.bridge.onOpenPlan?.((planId) => store.getState().openPlan(planId));
// Its menu's items: each presses its key, as the keyboard would.
const stopMenu = selected.bridge.onMenuKey?.((key) => handleKey(store, key));

window.addEventListener('pagehide', () => {
  stopOpening?.();
  stopMenu?.();
  runtime.dispose();
  selected.dispose();
});
// A page restored from the back-forward cache was disposed when it was hidden: start afresh.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) window.location.reload();
});

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root');
createRoot(container).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App hasToken={selected.hasToken} nativeFileDialog={selected.transport === 'electron'} />
    </StoreContext.Provider>
  </StrictMode>,
);
