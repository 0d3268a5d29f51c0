'use strict';
// Electron's IPC for a browser page, played by two halves:
// - servingElectron(): the main process's `electron` module (app, BrowserWindow, ipcMain, protocol,
//   dialog, shell, safeStorage, Notification, Menu). The real desktop app (out/main/index.js) runs on it unchanged: its
//   app:// handler serves the page over http://127.0.0.1, and its ipcMain handlers (the real
//   main/electron/ipc.ts registration) answer the page over a WebSocket.
// - pageScript(): the page's `require('electron')` (contextBridge, ipcRenderer), into which the real
//   built preload (out/preload/index.js) is loaded before the console's own scripts.
// Every value crosses a structured clone (v8.serialize/deserialize, as Electron's IPC does), a
// handler's exception reaches the page as Electron carries it ("Error invoking remote method …"),
// and contextBridge keeps only the message of an Error, as Electron's does.
const http = require('node:http');
const v8 = require('node:v8');
const { WebSocketServer } = require('ws');
const { encodeWire, decodeWire } = require('./ipc-wire.cjs');

const IPC_PATH = '/__electron_ipc';
const DIALOG_PATH = '/__electron_dialog';
const WINDOW_PATH = '/__electron_window';
const NOTIFICATIONS_PATH = '/__electron_notifications';
const MENU_PATH = '/__electron_menu';

/** What crosses Electron's IPC: a structured clone. Throws as Electron does for what cannot be cloned. */
function clone(value) {
  try {
    return v8.deserialize(v8.serialize(value));
  } catch {
    throw new Error('An object could not be cloned.');
  }
}

function emitter() {
  const listeners = new Map();
  return {
    on(name, listener) {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return this;
    },
    once(name, listener) {
      const once = (...args) => {
        listeners.set(name, (listeners.get(name) ?? []).filter((l) => l !== once));
        listener(...args);
      };
      return this.on(name, once);
    },
    emit(name, ...args) {
      for (const listener of listeners.get(name) ?? []) listener(...args);
    },
  };
}

function servingElectron() {
  const handlers = new Map();
  let protocolHandler = null;
  let appOrigin = null;
  let page = null;

  const webContents = Object.assign(emitter(), {
    id: 1,
    isDestroyed: () => false,
    setWindowOpenHandler() {},
    send(channel, ...args) {
      const wire = encodeWire(clone(args));
      if (page && page.readyState === page.OPEN) page.send(JSON.stringify({ type: 'event', channel, args: wire }));
    },
  });

  /** The frame's URL as Electron reports it: the page's path under the app's own origin. */
  const frameUrl = (pageUrl) => {
    const url = new URL(pageUrl);
    return `${appOrigin}${url.pathname}${url.search}${url.hash}`;
  };

  async function answer(message) {
    const handler = handlers.get(message.channel);
    if (!handler) throw new Error(`No handler registered for '${message.channel}'`);
    const args = clone(decodeWire(message.args));
    const event = { sender: webContents, senderFrame: { url: frameUrl(message.frameUrl), parent: null } };
    let result;
    try {
      result = await handler(event, ...args);
    } catch (error) {
      console.error(`Error occurred in handler for '${message.channel}':`, error);
      throw new Error(`Error invoking remote method '${message.channel}': ${String(error)}`);
    }
    return clone(result);
  }

  // What the operator picks in the next native file dialog; a test names it (pickInNativeDialog).
  let nextPick = null;
  // Whether the window has the focus (a test moves it away: blurNativeWindow), and the system
  // notifications shown, which a test reads and clicks (nativeNotifications, clickNativeNotification).
  let focused = true;
  const shown = [];
  // The application menu as set, whose items a test chooses by their labels (chooseInNativeMenu).
  let menu = null;
  const bodyOf = async (req) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    return JSON.parse(body);
  };
  const server = http.createServer(async (req, res) => {
    if (req.url === DIALOG_PATH && req.method === 'POST') {
      nextPick = await bodyOf(req);
      return void res.writeHead(204).end();
    }
    if (req.url === WINDOW_PATH && req.method === 'POST') {
      focused = (await bodyOf(req)).focused;
      return void res.writeHead(204).end();
    }
    if (req.url === MENU_PATH && req.method === 'POST') {
      const labels = await bodyOf(req);
      let items = menu?.template ?? [];
      let item = null;
      for (const label of labels) {
        item = items.find((candidate) => candidate.label === label || (label === 'Help' && candidate.role === 'help'));
        items = Array.isArray(item?.submenu) ? item.submenu : [];
      }
      if (!item?.click) return void res.writeHead(404).end();
      item.click();
      return void res.writeHead(204).end();
    }
    if (req.url === NOTIFICATIONS_PATH && req.method === 'GET') {
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(shown.map((n) => ({ title: n.options.title, body: n.options.body }))));
    }
    if (req.url === NOTIFICATIONS_PATH && req.method === 'POST') {
      const notification = shown[(await bodyOf(req)).index];
      if (!notification) return void res.writeHead(404).end();
      notification.events.emit('click');
      return void res.writeHead(204).end();
    }
    if (!protocolHandler) return void res.writeHead(503).end();
    const response = await protocolHandler(new Request(`${appOrigin}${req.url}`, { method: req.method }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  const sockets = new WebSocketServer({ server, path: IPC_PATH });
  sockets.on('connection', (socket) => {
    page = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      answer(message).then(
        (value) => socket.send(JSON.stringify({ type: 'reply', id: message.id, ok: true, value: encodeWire(value) })),
        (error) => socket.send(JSON.stringify({ type: 'reply', id: message.id, ok: false, error: encodeWire(error) })),
      );
    });
    // The page went away (a reload, a navigation): Electron tells the main process so.
    socket.on('close', () => {
      if (page === socket) page = null;
      webContents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false, url: '' });
    });
  });

  class BrowserWindow {
    constructor(options) {
      this.options = options;
      this.webContents = webContents;
      this.events = emitter();
      app.emit('web-contents-created', {}, webContents);
    }
    loadURL(url) {
      appOrigin = new URL(url).origin === 'null' ? url.replace(/^(\w+:\/\/[^/]+).*$/, '$1') : new URL(url).origin;
      const path = url.slice(appOrigin.length);
      server.listen(0, '127.0.0.1', () => {
        process.stdout.write(`agents desktop stand-in: http://127.0.0.1:${server.address().port}${path}\n`);
        this.events.emit('ready-to-show');
      });
      return Promise.resolve();
    }
    once(name, listener) {
      this.events.once(name, listener);
    }
    on(name, listener) {
      this.events.on(name, listener);
    }
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return false;
    }
    isFocused() {
      return focused;
    }
    show() {}
    focus() {
      focused = true;
    }
    restore() {}
    maximize() {}
    isMaximized() {
      return false;
    }
    getNormalBounds() {
      return { x: 0, y: 0, width: this.options.width, height: this.options.height };
    }
  }

  // A system notification: recorded when shown; a test clicks it.
  class Notification {
    static isSupported() {
      return true;
    }
    constructor(options) {
      this.options = options;
      this.events = emitter();
    }
    on(name, listener) {
      this.events.on(name, listener);
      return this;
    }
    show() {
      shown.push(this);
    }
  }

  const appEvents = emitter();
  let quitting = false;
  const app = Object.assign(appEvents, {
    isPackaged: true,
    enableSandbox() {},
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    setBadgeCount: () => true,
    // Quitting as Electron does: before-quit may be prevented (the app then settles and quits again).
    quit() {
      let prevented = false;
      appEvents.emit('before-quit', { preventDefault: () => (prevented = true) });
      if (prevented || quitting) return;
      quitting = true;
      sockets.close();
      server.close();
      process.exit(0);
    },
    exit: (code) => process.exit(code),
  });
  process.on('SIGTERM', () => app.quit());

  return {
    app,
    BrowserWindow,
    ipcMain: {
      handle(channel, handler) {
        if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        handlers.set(channel, handler);
      },
      removeHandler: (channel) => void handlers.delete(channel),
    },
    protocol: {
      registerSchemesAsPrivileged() {},
      handle(_scheme, handler) {
        protocolHandler = handler;
      },
    },
    dialog: {
      async showOpenDialog() {
        const picked = nextPick;
        nextPick = null;
        return picked ? { canceled: false, filePaths: picked } : { canceled: true, filePaths: [] };
      },
    },
    shell: { openPath: async () => '' },
    Menu: {
      buildFromTemplate: (template) => ({ template }),
      setApplicationMenu(built) {
        menu = built;
      },
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    safeStorage: { isEncryptionAvailable: () => false },
    Notification,
  };
}

/**
 * The page's half, as the source of an init script: `require('electron')` for the real preload,
 * which runs before the console's scripts, only on the stand-in's own pages.
 */
function pageScript(preloadSource, origin) {
  return `(() => {
  if (location.origin !== ${JSON.stringify(origin)}) return;
  const encodeWire = ${encodeWire.toString()};
  const decodeWire = ${decodeWire.toString()};
  const socket = new WebSocket(location.origin.replace(/^http/, 'ws') + ${JSON.stringify(IPC_PATH)});
  const outbox = [];
  const pending = new Map();
  const listeners = new Map();
  let nextId = 1;
  socket.onopen = () => { for (const message of outbox.splice(0)) socket.send(message); };
  const post = (message) => (socket.readyState === WebSocket.OPEN ? socket.send(message) : outbox.push(message));
  const ipcRenderer = {
    invoke(channel, ...args) {
      return new Promise((resolve, reject) => {
        let wire;
        try { wire = encodeWire(args); } catch { reject(new Error('An object could not be cloned.')); return; }
        const id = nextId++;
        pending.set(id, { resolve, reject });
        post(JSON.stringify({ type: 'invoke', id, channel, args: wire, frameUrl: location.href }));
      });
    },
    on(channel, listener) {
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
      return ipcRenderer;
    },
  };
  socket.onmessage = ({ data }) => {
    const message = JSON.parse(data);
    if (message.type === 'reply') {
      const call = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) call?.resolve(decodeWire(message.value));
      else call?.reject(decodeWire(message.error));
    } else if (message.type === 'event') {
      const args = decodeWire(message.args);
      for (const listener of listeners.get(message.channel) ?? []) listener({ sender: ipcRenderer }, ...args);
    }
  };
  // contextBridge: values are copied between the worlds, functions and promises proxied, and an
  // Error keeps only its message.
  const across = (value) => {
    if (typeof value === 'function') {
      return (...args) => {
        try {
          return across(value(...args.map(across)));
        } catch (error) {
          throw across(error);
        }
      };
    }
    if (value instanceof Promise) return value.then(across, (reason) => { throw across(reason); });
    if (value instanceof Error) return new Error(value.message);
    if (Array.isArray(value)) return value.map(across);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, across(v)]));
    return value;
  };
  const contextBridge = {
    exposeInMainWorld(key, api) {
      Object.defineProperty(window, key, { value: across(api), enumerable: true });
    },
  };
  const require = (name) => {
    if (name === 'electron') return { contextBridge, ipcRenderer };
    throw new Error('a sandboxed preload cannot require ' + name);
  };
  const module = { exports: {} };
  (function (require, module, exports) {
${preloadSource}
  })(require, module, module.exports);
})();`;
}

/** Tells the desktop app on the stand-in which file the operator picks in its next file dialog. */
async function pickInNativeDialog(pageUrl, filePath) {
  const response = await fetch(new URL(DIALOG_PATH, pageUrl), { method: 'POST', body: JSON.stringify([filePath]) });
  if (!response.ok) throw new Error(`the stand-in's dialog refused the pick: ${response.status}`);
}

async function standInCall(pageUrl, path, init) {
  const response = await fetch(new URL(path, pageUrl), init);
  if (!response.ok) throw new Error(`the stand-in refused ${init?.method ?? 'GET'} ${path}: ${response.status}`);
  return response;
}

/** Moves the focus away from the desktop app's window on the stand-in, as switching to another app does. */
async function blurNativeWindow(pageUrl) {
  await standInCall(pageUrl, WINDOW_PATH, { method: 'POST', body: JSON.stringify({ focused: false }) });
}

/** The system notifications the desktop app on the stand-in has shown, oldest first. */
async function nativeNotifications(pageUrl) {
  return (await standInCall(pageUrl, NOTIFICATIONS_PATH)).json();
}

/** Clicks the desktop app's system notification number `index` (from 0), as the operator would. */
async function clickNativeNotification(pageUrl, index) {
  await standInCall(pageUrl, NOTIFICATIONS_PATH, { method: 'POST', body: JSON.stringify({ index }) });
}

/** Chooses an item of the desktop app's menu by its labels ("Plan", "Next failure"), as the operator would. */
async function chooseInNativeMenu(pageUrl, labels) {
  await standInCall(pageUrl, MENU_PATH, { method: 'POST', body: JSON.stringify(labels) });
}

module.exports = { servingElectron, pageScript, pickInNativeDialog, blurNativeWindow, nativeNotifications, clickNativeNotification, chooseInNativeMenu };
