// The desktop app's entry (electron-vite's main entry); everything it does is in runDesktop.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, safeStorage, screen, session, shell } from 'electron';
import { runDesktop } from './desktop';

runDesktop({ app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, safeStorage, screen, session, shell }, { bundleDir: __dirname }).catch((error: unknown) => {
  console.error('agents: the desktop app failed to start', error);
  app.exit(1);
});
