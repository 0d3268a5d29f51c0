'use strict';
// Loaded with `node --require` before out/main/index.js: answers `require('electron')` with a
// recording stand-in, so the built bundle starts as far as it can without Electron's binary.
// When the window loads its URL, it reports what it saw as one JSON line and exits; or, with
// AGENTS_ELECTRON_STAND_IN=serve, it serves the window's page to a browser and plays Electron's IPC
// for it (serveWindow below), so the real desktop app runs the console as it would in its window.
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

/** Accepts any property access or call, so the parts of Electron this test does not inspect just work. */
function anything() {
  const target = function () {};
  return new Proxy(target, {
    get: (_t, key) => (key === 'then' ? undefined : anything()),
    apply: () => anything(),
    construct: () => anything(),
  });
}

/** The files this process holds open, by path: how the report proves the database is open. */
function openFiles() {
  return fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(path.join('/proc/self/fd', fd));
      } catch {
        return null;
      }
    })
    .filter(Boolean);
}

class BrowserWindow {
  constructor(options) {
    this.options = options;
    this.webContents = { id: 1, send() {}, isDestroyed: () => false };
  }
  loadURL(url) {
    const report = { url, options: this.options, openFiles: openFiles() };
    process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
    return Promise.resolve();
  }
  once() {}
  on() {}
  isDestroyed() {
    return false;
  }
}

const app = new Proxy(
  {
    isPackaged: true,
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    on() {},
    quit() {},
    exit: (code) => process.exit(code),
  },
  { get: (target, key) => (key in target ? target[key] : anything()) },
);

const serving = process.env.AGENTS_ELECTRON_STAND_IN === 'serve';
const electron = new Proxy(serving ? require('./electron-ipc-stand-in.cjs').servingElectron() : { app, BrowserWindow }, {
  get: (target, key) => (key in target ? target[key] : anything()),
});

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'electron' ? electron : load.call(this, request, ...rest);
};
