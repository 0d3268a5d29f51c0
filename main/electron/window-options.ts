import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The main window. Each preference is the Electron security checklist's: the page gets no Node,
 * runs in Chromium's sandbox, and sees the preload only through contextBridge.
 */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 520,
    title: 'CleverAgents',
    // Shown once the first paint is ready, so the window never flashes white.
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}
