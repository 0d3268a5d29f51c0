import type { App as ElectronApp, BrowserWindow as ElectronWindow, Dialog, IpcMain, Menu as ElectronMenu, Protocol, SafeStorage, Screen, Session, Shell } from 'electron';
import path from 'node:path';
import { PlanError } from '../../shared/errors';
import { notifiesOf } from '../../shared/attention';
import { SHELL_CHANNELS } from '../../shared/streams';
import { type App, openApp } from '../app/open-app';
import { isTraceViewerLink } from '../app/telemetry/otlp';
import { contentSecurityPolicy } from '../host/csp';
import { DisposableStore } from '../../shared/lifecycle';
import { createConsoleHost } from '../host/console-host';
import type { HostLog } from '../host/router';
import { consoleWiring } from '../app/team/team-status';
import { settleRuns } from '../host/settle-runs';
import { APP_ENTRY_URL, APP_ORIGIN, APP_SCHEME, originOf } from './app-origin';
import { APP_SCHEME_PRIVILEGES, createAppProtocolHandler } from './app-protocol';
import { registerIpc, trustedSender } from './ipc';
import { menuTemplate } from './menu';
import { type NotificationElectron, startDesktopNotifications } from './notifications';
import { hardenSession, hardenWebContents } from './security';
import { mainWindowOptions } from './window-options';
import { readWindowState, windowStateOf, withWindowState, writeWindowState } from './window-state';
import { safeStorageCodec } from './secret-codec';

/** The parts of the electron module the desktop app uses; injected, so tests can hand in fakes. */
export interface ElectronApi {
  app: ElectronApp;
  BrowserWindow: new (options: ReturnType<typeof mainWindowOptions>) => ElectronWindow;
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  protocol: Pick<Protocol, 'registerSchemesAsPrivileged' | 'handle'>;
  session: { defaultSession: Session };
  Menu: Pick<typeof ElectronMenu, 'buildFromTemplate' | 'setApplicationMenu'>;
  dialog: Pick<Dialog, 'showOpenDialog'>;
  /** Shows a plan's sandbox in the system's file manager; absent in tests. */
  shell?: Pick<Shell, 'openPath' | 'openExternal'>;
  /** System notifications when a plan needs its operator (notifications.ts); absent in tests. */
  Notification?: NotificationElectron['Notification'];
  /** The displays, so a kept window position is used only where it can still be seen; absent: the position is not kept. */
  screen?: Pick<Screen, 'getAllDisplays'>;
  /** Encrypts the model's API key at rest; absent in tests. */
  safeStorage?: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>;
}

export interface DesktopOptions {
  /** The folder of the built main bundle (`out/main`); the renderer and preload sit beside it. */
  bundleDir: string;
  env?: NodeJS.ProcessEnv;
  log?: HostLog;
  open?: typeof openApp;
}

export interface Desktop {
  app: App;
  window(): ElectronWindow | null;
  shutdown(): Promise<void>;
}

/**
 * The desktop app's composition root: security policies first, then the engine (SQLite in the
 * data directory), the host bound to IPC, the menu, and one window. Resolves to null when another
 * instance already runs (that one is focused instead).
 */
export function runDesktop(electron: ElectronApi, options: DesktopOptions): Promise<Desktop | null> {
  const { app } = electron;
  const env = options.env ?? process.env;
  const log: HostLog = options.log ?? ((message, error) => console.error(`agents: ${message}`, error ?? ''));
  const devUrl = !app.isPackaged ? env.ELECTRON_RENDERER_URL : undefined;
  const appOrigin = (devUrl && originOf(devUrl)) || APP_ORIGIN;

  // Both must happen before the app is ready.
  electron.protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  app.enableSandbox();
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return Promise.resolve(null);
  }

  let window: ElectronWindow | null = null;
  // Set once the settings are open: "Open trace" goes to the browser when it is the trace viewer's address.
  let openExternally: ((url: string) => void) | undefined;
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, appOrigin, (url) => openExternally?.(url)));
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  return app.whenReady().then(async () => {
    const isMac = process.platform === 'darwin';
    const csp = contentSecurityPolicy({ devServerOrigin: devUrl ? appOrigin : undefined });
    hardenSession(electron.session.defaultSession, csp);
    electron.protocol.handle(APP_SCHEME, createAppProtocolHandler({ rendererDir: path.join(options.bundleDir, '../renderer'), csp }));

    const secrets = electron.safeStorage ? safeStorageCodec(electron.safeStorage) : null;
    // With a team database (Settings, AGENTS_DATABASE_URL) the app is a console of the team, which migrates it as `agents serve` does.
    const opened = await (options.open ?? openApp)({ env, secrets: secrets ?? undefined, migrate: true });
    const wiring = consoleWiring(opened);
    openExternally = (url) => {
      let template: string | undefined;
      try {
        template = opened.settings.read().traceUrl;
      } catch {
        return;
      }
      if (electron.shell && isTraceViewerLink(url, template)) void electron.shell.openExternal(url).catch((error: unknown) => log(`the browser could not open ${url}`, error));
    };
    for (const id of opened.recovered) log(`plan ${id} was interrupted by a stopped process; it can be retried`);
    const lifetime = new DisposableStore();
    // Ended last: the runs settle between steps, then the database closes.
    lifetime.add(() => opened.close());
    lifetime.add(async () => void (await settleRuns(opened.service)));
    const host = lifetime.add(
      createConsoleHost(opened, {
        log,
        operator: wiring.operator,
        team: wiring.team,
        pickPlanFile: async () => {
          const options = { title: 'Create a plan from a plan file', properties: ['openFile' as const], filters: [{ name: 'Plan files', extensions: ['yaml', 'yml', 'json'] }] };
          const picked = window ? await electron.dialog.showOpenDialog(window, options) : await electron.dialog.showOpenDialog(options);
          return picked.canceled ? null : (picked.filePaths[0] ?? null);
        },
        openFolder: electron.shell
          ? async (folder) => {
              const problem = await electron.shell!.openPath(folder);
              if (problem) throw new PlanError(`the file manager could not open ${folder}: ${problem}`, 'unsupported');
            }
          : undefined,
      }),
    );
    const { router, hub } = host;
    lifetime.add(registerIpc({
      ipcMain: electron.ipcMain,
      router,
      hub,
      log,
      isTrusted: trustedSender({ appOrigin, webContentsId: () => (window && !window.isDestroyed() ? window.webContents.id : null) }),
    }));
    // A menu item presses its key in the window's page (preload/bridge.ts, onMenuKey).
    const press = (key: string) => {
      if (window && !window.isDestroyed()) window.webContents.send(SHELL_CHANNELS.key, key);
    };
    electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(menuTemplate({ isDev: Boolean(devUrl), isMac, press })));

    const createWindow = () => {
      // The size and position of the last start (window-state.ts), saved as the window closes.
      const saved = readWindowState(opened.dataDir);
      const workAreas = electron.screen?.getAllDisplays().map((display) => display.workArea) ?? [];
      const created = new electron.BrowserWindow(withWindowState(mainWindowOptions(path.join(options.bundleDir, '../preload/index.js')), saved, workAreas));
      window = created;
      if (saved?.maximized) created.maximize();
      created.on('close', () => {
        try {
          writeWindowState(opened.dataDir, windowStateOf(created));
        } catch (error) {
          log('the window size and position could not be saved', error);
        }
      });
      created.once('ready-to-show', () => created.show());
      created.on('closed', () => {
        if (window === created) window = null;
      });
      void created.loadURL(devUrl ?? APP_ENTRY_URL);
    };
    createWindow();
    // Started beside the window, not before it: nothing of the start waits for it.
    const notifications = electron.Notification
      ? startDesktopNotifications({
          electron: { Notification: electron.Notification, app },
          hub,
          plans: opened.service,
          window: () => (window && !window.isDestroyed() ? window : null),
          enabled: (kind) => {
            const notify = opened.settings.read().notify;
            return notify?.desktop !== false && notifiesOf(notify, kind);
          },
          log,
        }).catch((error: unknown) => {
          log('notifications are off: they could not start', error);
          return null;
        })
      : Promise.resolve(null);
    lifetime.add(async () => (await notifications)?.dispose());
    app.on('activate', () => {
      if (!window) createWindow();
    });
    app.on('window-all-closed', () => {
      if (!isMac) app.quit();
    });

    // The IPC binding first, then the host's hub, the runs and the database (added in the reverse order).
    const shutDown = () => lifetime.dispose();
    // Quitting waits, once, until running plans have paused between steps and the database is closed.
    let settled = false;
    app.on('before-quit', (event) => {
      if (settled) return;
      event.preventDefault();
      void shutDown()
        .catch((error: unknown) => log('shutdown failed', error))
        .finally(() => {
          settled = true;
          app.quit();
        });
    });

    return { app: opened, window: () => window, shutdown: shutDown };
  });
}
