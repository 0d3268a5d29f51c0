import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The desktop app as built: what Electron would load. Electron's binary cannot run here, so the
// bundle is checked for what it requires, then started in Node with a stand-in for `electron`.
const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'out/main/index.js');
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

function requiredModules(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...new Set([...source.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]))];
}

function packageName(request: string): string {
  const parts = request.split('/');
  return request.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Where Node finds the package from `from`: the first node_modules folder on its search path that holds it (its exports may not list package.json). */
function packageDir(name: string, from: string): string {
  const paths = createRequire(path.join(from, 'package.json')).resolve.paths(name) ?? [];
  const dir = paths.map((p) => path.join(p, name)).find((candidate) => existsSync(path.join(candidate, 'package.json')));
  if (!dir) throw new Error(`${name} is not installed where ${from} can require it`);
  return dir;
}

/** Every file under `dir` whose name marks native code: a compiled addon or a build recipe for one. */
function nativeFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.node') || entry.name === 'binding.gyp') found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** The package and everything it depends on, transitively, as folders in node_modules. */
function dependencyClosure(name: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (pkg: string, from: string) => {
    const dir = packageDir(pkg, from);
    if ([...seen.values()].includes(dir)) return;
    seen.set(pkg, dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir);
  };
  visit(name, ROOT);
  return seen;
}

describe('the built desktop app (out/main)', () => {
  let buildOutput = '';
  beforeAll(() => {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    buildOutput = build.stdout + build.stderr;
  }, 120_000);

  it('builds without a warning a newcomer would have to weigh', () => {
    expect(buildOutput).not.toMatch(/\[[A-Z_]+\]|warning/i);
  });

  it('requires only Node built-ins, electron, and pure-JS packages (no .node file reachable)', () => {
    const requests = requiredModules(MAIN);
    expect(requests).toContain('node:sqlite');
    const packages = requests.filter((r) => !builtins.has(r) && r !== 'electron' && !r.startsWith('.')).map(packageName);
    expect(packages.length).toBeGreaterThan(0);
    const native: string[] = [];
    for (const pkg of packages) {
      for (const dir of dependencyClosure(pkg).values()) native.push(...nativeFiles(dir));
    }
    expect(native).toEqual([]);
  });

  describe('started in Node with a recording stand-in for electron', () => {
    let home: string;
    beforeAll(() => {
      home = mkdtempSync(path.join(tmpdir(), 'agents-desktop-'));
    });
    afterAll(() => rmSync(home, { recursive: true, force: true }));

    it('reaches the window loadURL with the secure options and node:sqlite open in the data folder', () => {
      const started = spawnSync(process.execPath, ['--require', path.join(__dirname, 'support/electron-stand-in.cjs'), MAIN], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: home, AGENTS_HOME: path.join(home, 'data') },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(started.stderr).not.toMatch(/failed to start|Error/);
      const line = started.stdout.trim().split('\n').at(-1) ?? '';
      const report = JSON.parse(line) as { url: string; options: { webPreferences: Record<string, unknown> }; openFiles: string[] };
      expect(report.url).toBe('app://console/index.html');
      expect(report.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
      const preload = report.options.webPreferences.preload as string;
      expect(existsSync(preload) && statSync(preload).isFile()).toBe(true);
      const database = path.join(home, 'data', 'agents.db');
      expect(report.openFiles).toContain(database);
      expect(report.openFiles).toContain(`${database}-wal`);
    });
  });
});
