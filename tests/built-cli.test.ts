import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = resolve(__dirname, '../scripts/built-cli.cjs');
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A checkout with two sources, package.json and a build of them made after them, as `npm run build` leaves it. */
function checkout(sources: string[] | null = ['main/cli/main.ts', 'shared/ids.ts']) {
  const root = mkdtempSync(join(tmpdir(), 'agents-built-cli-'));
  roots.push(root);
  for (const file of ['main/cli/main.ts', 'shared/ids.ts', 'shared/unused.ts', 'package.json']) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), file === 'package.json' ? '{}' : '');
    utimesSync(join(root, file), new Date(1_000_000), new Date(1_000_000));
  }
  mkdirSync(join(root, 'out/cli'), { recursive: true });
  writeFileSync(join(root, 'out/cli/main.cjs'), '');
  if (sources) writeFileSync(join(root, 'out/cli/sources.json'), JSON.stringify(sources));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts/built-cli.cjs'));
  const { freshBuiltCli } = createRequire(join(root, 'scripts/x.cjs'))('./built-cli.cjs') as { freshBuiltCli: () => string | null };
  const touch = (file: string) => utimesSync(join(root, file), new Date(), new Date(Date.now() + 5_000));
  return { root, fresh: freshBuiltCli, touch, built: join(root, 'out/cli/main.cjs') };
}

describe('whether bin/agents.cjs runs the build or the sources', () => {
  it('runs the build while no file it bundled (or package.json) is newer, and the sources once one is', () => {
    const { fresh, touch, built } = checkout();
    expect(fresh()).toBe(built);
    touch('shared/ids.ts');
    expect(fresh()).toBeNull();
  });

  it('ignores a newer file the build did not bundle: it reaches the build only through a bundled file that imports it', () => {
    const { fresh, touch, built } = checkout();
    touch('shared/unused.ts');
    expect(fresh()).toBe(built);
    touch('package.json');
    expect(fresh()).toBeNull();
  });

  it('runs the sources when a bundled file is gone, or the build has no list of its sources', () => {
    const gone = checkout();
    rmSync(join(gone.root, 'shared/ids.ts'));
    expect(gone.fresh()).toBeNull();
    expect(checkout(null).fresh()).toBeNull();
  });

  it('runs the build of an installed package, which has no sources', () => {
    const installed = checkout();
    rmSync(join(installed.root, 'main'), { recursive: true });
    expect(installed.fresh()).toBe(installed.built);
  });
});

describe("the built CLI's code cache (scripts/code-cache.cjs)", () => {
  const CACHE_SCRIPT = resolve(__dirname, '../scripts/code-cache.cjs');

  /** A build of two files, the entry requiring a chunk, each printing what CommonJS gives it. */
  function build() {
    const root = mkdtempSync(join(tmpdir(), 'agents-code-cache-'));
    roots.push(root);
    const dir = join(root, 'out/cli');
    mkdirSync(join(dir, 'chunks'), { recursive: true });
    writeFileSync(join(dir, 'main.cjs'), 'exports.answer = require("./chunks/a.cjs").answer();\nconsole.log(__filename.endsWith("main.cjs"), module.exports === exports);\n');
    writeFileSync(join(dir, 'chunks/a.cjs'), 'exports.answer = () => [1, 2, 3].map((n) => n * 14).at(-1);\nconsole.log(require("node:path").basename(__dirname));\n');
    const run = () => {
      const code = `const used = require(${JSON.stringify(CACHE_SCRIPT)}).useCodeCache(${JSON.stringify(dir)}); console.log(used, require(${JSON.stringify(join(dir, 'main.cjs'))}).answer);`;
      return execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' });
    };
    const cached = () => readdirSync(join(dir, 'code-cache')).sort();
    const mtimes = () => cached().map((file) => statSync(join(dir, 'code-cache', file)).mtimeMs);
    return { dir, run, cached, mtimes };
  }

  it('runs the files as require does, writes a cache of each after the first run and reads it after', () => {
    const { run, cached, mtimes } = build();
    expect(run()).toBe('chunks\ntrue true\ntrue 42\n');
    expect(cached()).toEqual(['a.cjs.v8', 'main.cjs.v8']);
    const written = mtimes();
    expect(run()).toBe('chunks\ntrue true\ntrue 42\n');
    // Accepted as it was: not written again.
    expect(mtimes()).toEqual(written);
  });

  it('compiles a file again, and caches it anew, once it changed', () => {
    const { dir, run, mtimes } = build();
    run();
    const [chunk, entry] = mtimes();
    writeFileSync(join(dir, 'chunks/a.cjs'), 'exports.answer = () => 43;\nconsole.log("changed");\n');
    expect(run()).toBe('changed\ntrue true\ntrue 43\n');
    const [chunkAfter, entryAfter] = mtimes();
    expect(chunkAfter).toBeGreaterThan(chunk);
    expect(entryAfter).toBe(entry);
  });

  it('leaves compiling to Node where the build has no room for a cache', () => {
    const { dir, run } = build();
    writeFileSync(join(dir, 'code-cache'), 'a file where the folder would be');
    expect(run()).toBe('chunks\ntrue true\nfalse 42\n');
  });
});

describe('the build (vite.cli.config.ts)', () => {
  it("reads a command's code only when that command runs, and Node's costlier built-ins only when used", () => {
    const root = mkdtempSync(join(tmpdir(), 'agents-build-'));
    roots.push(root);
    const out = join(root, 'cli');
    const repo = resolve(__dirname, '..');
    execFileSync(process.execPath, [join(repo, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'vite.cli.config.ts', '--outDir', out, '--logLevel', 'error'], { cwd: repo, stdio: 'pipe' });
    // At exit: the build's files this process read, and the built-ins it loaded.
    const report = join(root, 'report.cjs');
    writeFileSync(
      report,
      `process.on('exit', () => process.stderr.write(JSON.stringify({ files: Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(out)})).map((f) => require('node:path').basename(f).replace(/-[\\w-]{8}\\.cjs$/, '')), builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)) })));`,
    );
    const home = join(root, 'home');
    const run = (...args: string[]) => {
      const ran = spawnSync(process.execPath, ['-r', report, join(out, 'main.cjs'), ...args], { env: { ...process.env, AGENTS_HOME: home }, encoding: 'utf8' });
      return { status: ran.status, stdout: ran.stdout, loaded: JSON.parse(ran.stderr.slice(ran.stderr.lastIndexOf('{"files"'))) as { files: string[]; builtins: string[] } };
    };
    const list = run('plan', 'list', '--json');
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ plans: [] });
    expect(list.loaded.files).toContain('plan-read');
    for (const other of ['plan-run', 'plan-apply', 'plan-fix', 'serve', 'serve-command', 'mcp', 'config', 'demo']) expect(list.loaded.files).not.toContain(other);
    expect(list.loaded.builtins).toContain('sqlite');
    for (const builtin of ['crypto', 'zlib', 'child_process', 'readline']) expect(list.loaded.builtins).not.toContain(builtin);
    // Help names every command, so it reads them all.
    const help = run('plan', '--help');
    expect(help.status).toBe(0);
    expect(help.loaded.files).toEqual(expect.arrayContaining(['plan-read', 'plan-run', 'plan-apply', 'plan-fix']));
  }, 120_000);
});
