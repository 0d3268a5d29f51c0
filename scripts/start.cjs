#!/usr/bin/env node
// `npm start`: builds if needed, then opens the desktop app where Electron's binary exists, or
// else the same console in a browser through `agents serve`. A newcomer gets a console either way.
//
//   npm start                 desktop app, or the web console on the demo plans
//   npm start -- --open       also open a browser (the default where a desktop is detected)
//   npm start -- --no-open    never open a browser
//   npm start -- --serve      the web console even where Electron is available
//   npm start -- --project-root DIR   where plans created in the web console may take their projects
//                             (repeatable; default: your home and the folder npm start ran in)
'use strict';
require('./require-node.cjs')('npm start');

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const say = (line) => process.stderr.write(`npm start: ${line}\n`);

// ---- build ------------------------------------------------------------------

const OUTPUTS = ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'].map((p) => path.join(ROOT, p));
const SOURCES = ['main', 'preload', 'renderer', 'shared', 'electron.vite.config.ts', 'package.json'].map((p) => path.join(ROOT, p));

/** Newest modification time under `entry`, tests and dependencies aside. */
function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const name of fs.readdirSync(entry)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

function needsBuild() {
  const built = OUTPUTS.map((file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0));
  if (built.some((mtime) => mtime === 0)) return true;
  return Math.max(...SOURCES.map(newestMtime)) > Math.min(...built);
}

function build() {
  say('building the app (electron-vite build)…');
  const cli = path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js');
  return spawnSync(process.execPath, [cli, 'build'], { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

// ---- Electron ---------------------------------------------------------------

/**
 * The Electron executable, if it is on disk. Plain `require('electron')` would try to download it
 * (and fail, on machines without access), so the files are looked at instead.
 */
function electronBinary() {
  const dir = path.join(ROOT, 'node_modules/electron');
  const pathFile = path.join(dir, 'path.txt');
  if (!fs.existsSync(pathFile)) return null;
  const relative = fs.readFileSync(pathFile, 'utf8').trim();
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(dir, 'dist');
  const binary = path.join(base, relative);
  return fs.existsSync(binary) ? binary : null;
}

/** No rebuild step: the app has no native module, and Electron's embedded Node 24 has node:sqlite. */
function launchElectron(binary) {
  const child = spawn(binary, ['.'], { cwd: ROOT, stdio: 'inherit', detached: OWN_GROUP });
  forwardSignals(child);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// ---- the web console ----------------------------------------------------------

const AGENTS = path.join(ROOT, 'bin/agents.cjs');

function portIsFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Open a browser when asked, or by default where a desktop session is apparent. */
function wantsBrowser() {
  if (args.includes('--no-open')) return false;
  if (args.includes('--open')) return true;
  if (process.env.CI) return false;
  return process.platform === 'darwin' || process.platform === 'win32' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Each `--project-root DIR` (or `--project-root=DIR`) given to npm start, for agents serve. */
function projectRoots() {
  const roots = [];
  args.forEach((arg, i) => {
    if (arg === '--project-root' && args[i + 1]) roots.push('--project-root', args[i + 1]);
    else if (arg.startsWith('--project-root=')) roots.push('--project-root', arg.slice('--project-root='.length));
  });
  return roots;
}

/**
 * agents serve creates the demo plans on a first start, from a copy of examples/ in the data
 * folder, and runs in the folder npm start was started in: that folder is a project root by default.
 */
async function launchServe() {
  const port = (await portIsFree(4477)) ? '4477' : '0';
  const startedIn = process.env.INIT_CWD || process.cwd();
  const child = spawn(process.execPath, [AGENTS, 'serve', '--port', port, ...projectRoots(), ...(wantsBrowser() ? ['--open'] : [])], {
    cwd: startedIn,
    stdio: 'inherit',
    detached: OWN_GROUP,
  });
  forwardSignals(child);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/**
 * The child runs in its own process group, so a Ctrl-C in the terminal reaches it once, through
 * here, and not twice (a second signal means "exit now" to agents serve).
 */
const OWN_GROUP = process.platform !== 'win32';

/** The child shuts down gracefully on the signal; this launcher waits for it, then exits alike. */
function forwardSignals(child) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
}

async function main() {
  const built = needsBuild() ? build() : true;
  const binary = args.includes('--serve') ? null : electronBinary();
  if (binary && built) return launchElectron(binary);
  if (binary) say('the build failed; starting the web console instead');
  else if (!args.includes('--serve')) say("Electron's binary is not available on this machine; starting the web console (agents serve) instead.");
  await launchServe();
}

main().catch((error) => {
  say(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
