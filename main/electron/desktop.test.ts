import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS } from '../../shared/contract';
import { APP_ENTRY_URL } from './app-origin';
import { STREAM_CHANNELS } from '../../shared/streams';
import { type fakeIpcMain, fakeWebContents, invokeEvent } from './test-support';

const { subscribe: IPC_SUBSCRIBE, unsubscribe: IPC_UNSUBSCRIBE } = STREAM_CHANNELS;

type Listener = (...args: unknown[]) => void;

/** The electron module as the desktop app uses it, recorded; the real one cannot load here. */
const electron = vi.hoisted(() => {
  const state = {
    lock: true,
    listeners: new Map<string, Listener[]>(),
    windows: [] as { options: Record<string, unknown>; loaded: string[]; webContents: { id: number }; handlers: Map<string, Listener[]>; maximize: ReturnType<typeof vi.fn>; emit(name: string, ...args: unknown[]): void }[],
    calls: [] as string[],
  };
  const on = (name: string, listener: Listener) => {
    state.listeners.set(name, [...(state.listeners.get(name) ?? []), listener]);
  };
  const app = {
    isPackaged: true,
    enableSandbox: vi.fn(() => void state.calls.push('enableSandbox')),
    requestSingleInstanceLock: vi.fn(() => state.lock),
    quit: vi.fn(() => void state.calls.push('quit')),
    exit: vi.fn(),
    setBadgeCount: vi.fn(() => true),
    on: vi.fn(on),
    whenReady: vi.fn(() => {
      state.calls.push('whenReady');
      return Promise.resolve();
    }),
  };
  class BrowserWindow {
    webContents: { id: number };
    loaded: string[] = [];
    handlers = new Map<string, Listener[]>();
    constructor(readonly options: Record<string, unknown>) {
      this.webContents = { id: 100 + state.windows.length };
      state.windows.push(this);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    once(name: string, l: Listener) {
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), l]);
    }
    on(name: string, l: Listener) {
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), l]);
    }
    isDestroyed = () => false;
    isMinimized = () => false;
    show = vi.fn();
    focus = vi.fn();
    restore = vi.fn();
    maximize = vi.fn();
    // Where the operator left the window: moved, resized, then maximized.
    getNormalBounds = () => ({ x: 40, y: 30, width: 1000, height: 700 });
    isMaximized = () => true;
    emit(name: string, ...args: unknown[]) {
      for (const listener of this.handlers.get(name) ?? []) listener(...args);
    }
  }
  const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
  const session = {
    defaultSession: { setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn(), webRequest: { onHeadersReceived: vi.fn() } },
  };
  const protocol = {
    registerSchemesAsPrivileged: vi.fn(() => void state.calls.push('registerSchemesAsPrivileged')),
    handle: vi.fn(),
  };
  const Menu = { buildFromTemplate: vi.fn((t: unknown) => ({ template: t })), setApplicationMenu: vi.fn() };
  const dialog = { showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] as string[] })) };
  const shell = { openPath: vi.fn(async () => '') };
  return { state, app, BrowserWindow, session, protocol, Menu, dialog, shell, screen };
});

// One recording ipcMain for the whole file: the mocked module is built once.
const ipcMain = vi.hoisted(() => ({ current: null as unknown }));

vi.mock('electron', async () => {
  const { fakeIpcMain: make } = await import('./test-support');
  ipcMain.current = make();
  return {
    app: electron.app,
    BrowserWindow: electron.BrowserWindow,
    ipcMain: ipcMain.current,
    protocol: electron.protocol,
    session: electron.session,
    Menu: electron.Menu,
    dialog: electron.dialog,
    shell: electron.shell,
    screen: electron.screen,
    safeStorage: { isEncryptionAvailable: () => false, encryptString: () => Buffer.alloc(0), decryptString: () => '' },
    Notification: { isSupported: () => false },
  };
});

const emit = (name: string, ...args: unknown[]) => {
  for (const listener of electron.state.listeners.get(name) ?? []) listener(...args);
};

describe('the desktop composition root', () => {
  let home: string;
  const ipc = () => ipcMain.current as ReturnType<typeof fakeIpcMain>;

  beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), 'agents-desktop-'));
    vi.stubEnv('AGENTS_HOME', home);
    vi.stubEnv('ELECTRON_RENDERER_URL', '');
    electron.state.lock = true;
    electron.state.listeners.clear();
    electron.state.windows.length = 0;
    electron.state.calls.length = 0;
    vi.clearAllMocks();
    vi.resetModules();
  });

  afterEach(async () => {
    // Quit as the user would: the app settles its runs and closes the database before it goes.
    if (electron.state.listeners.has('before-quit')) {
      emit('before-quit', { preventDefault: vi.fn() });
      await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled());
    }
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
  });

  const start = async () => {
    await import('./index');
    await vi.waitFor(() => expect(electron.state.windows).toHaveLength(1));
    return electron.state.windows[0];
  };

  it('registers app:// as standard and secure and enables the sandbox before the app is ready', async () => {
    await start();
    expect(electron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      { scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) },
    ]);
    expect(electron.state.calls.indexOf('registerSchemesAsPrivileged')).toBeLessThan(electron.state.calls.indexOf('whenReady'));
    expect(electron.state.calls.indexOf('enableSandbox')).toBeLessThan(electron.state.calls.indexOf('whenReady'));
    expect(electron.app.requestSingleInstanceLock).toHaveBeenCalled();
  });

  it('opens one window with the secure preferences, the bundled preload, and the app:// page', async () => {
    const window = await start();
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect((window.options.webPreferences as { preload: string }).preload).toBe(path.join(__dirname, '../preload/index.js'));
    expect(window.loaded).toEqual([APP_ENTRY_URL]);
    expect(electron.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function));
  });

  it('denies permissions, sets the CSP on the session, hardens every WebContents and sets the menu', async () => {
    await start();
    const session = electron.session.defaultSession;
    const requestHandler = session.setPermissionRequestHandler.mock.calls[0][0] as (w: unknown, p: string, cb: (ok: boolean) => void) => void;
    const granted = vi.fn();
    requestHandler(null, 'notifications', granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect((session.setPermissionCheckHandler.mock.calls[0][0] as () => boolean)()).toBe(false);
    expect(session.webRequest.onHeadersReceived).toHaveBeenCalledOnce();
    const contents = { setWindowOpenHandler: vi.fn(), on: vi.fn() };
    emit('web-contents-created', {}, contents);
    expect((contents.setWindowOpenHandler.mock.calls[0][0] as (details: { url: string }) => unknown)({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.on.mock.calls.map(([name]) => name)).toEqual(expect.arrayContaining(['will-navigate', 'will-redirect', 'will-attach-webview']));
    const template = electron.Menu.buildFromTemplate.mock.calls[0][0] as { role?: string }[];
    expect(template.map((item) => item.role)).toEqual(expect.arrayContaining(['editMenu', 'windowMenu']));
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalled();
  });

  it("serves every contract channel over IPC to its own window only, validating each payload", async () => {
    const window = await start();
    expect([...ipc().handlers.keys()].sort()).toEqual([...CHANNELS, IPC_SUBSCRIBE, IPC_UNSUBSCRIBE].sort());
    const ours = fakeWebContents(window.webContents.id);
    const trusted = invokeEvent(ours, 'app://console/index.html');
    expect(await ipc().invoke('app.info', trusted, {})).toMatchObject({ ok: true, data: { dataDir: home } });
    expect(await ipc().invoke('plans.list', trusted, {})).toEqual({ ok: true, data: { plans: [] } });
    // Open folder shows a plan's own sandbox, so a plan that does not exist opens nothing.
    expect(await ipc().invoke('plans.openSandbox', trusted, { planId: 'NOPE' })).toMatchObject({ ok: false });
    expect(electron.shell.openPath).not.toHaveBeenCalled();
    for (const channel of CHANNELS) {
      expect(await ipc().invoke(channel, trusted, { unexpected: true })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect(await ipc().invoke(channel, invokeEvent(fakeWebContents(7), 'app://console/index.html'), {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await ipc().invoke(channel, invokeEvent(ours, 'https://evil.example/'), {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
  });

  it('quits after settling runs and closing the database, once', async () => {
    await start();
    const event = { preventDefault: vi.fn() };
    emit('before-quit', event);
    expect(event.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalledOnce());
    expect(ipc().handlers.size).toBe(0);
    const again = { preventDefault: vi.fn() };
    emit('before-quit', again);
    expect(again.preventDefault).not.toHaveBeenCalled();
    electron.state.listeners.delete('before-quit');
  });

  it('opens the window where it was left at the last start: its size, position and maximized state', async () => {
    const first = await start();
    expect(first.options).toMatchObject({ width: 1280, height: 820 });
    expect(first.options).not.toHaveProperty('x');
    expect(first.maximize).not.toHaveBeenCalled();
    first.emit('close');
    emit('before-quit', { preventDefault: vi.fn() });
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled());
    electron.state.listeners.clear();
    electron.state.windows.length = 0;
    vi.resetModules();

    const second = await start();
    expect(second.options).toMatchObject({ x: 40, y: 30, width: 1000, height: 700 });
    expect(second.maximize).toHaveBeenCalledOnce();
  });

  it('gives way to a running instance: no window, no database, just quit', async () => {
    electron.state.lock = false;
    await import('./index');
    await new Promise((resolve) => setImmediate(resolve));
    expect(electron.app.quit).toHaveBeenCalled();
    expect(electron.app.whenReady).not.toHaveBeenCalled();
    expect(electron.state.windows).toHaveLength(0);
    expect(ipc().handlers.size).toBe(0);
  });
});
